import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { findProjectsByIds } from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { loadBranches } from './mergeability.js'
import { findOpenMergeRequestsFromBranches } from './store.js'

/**
 * After a push moved branches of a project (full ref names), records a new version of every open merge request whose
 * source branch moved, as GitLab's post-receive refresh does; a request reading the merge request first records it
 * just the same.
 */
export async function recordVersionsAfterPush(ctx: Context, project: ProjectRow, refs: readonly string[]): Promise<void> {
  const branches = refs.filter((ref) => ref.startsWith('refs/heads/')).map((ref) => ref.slice('refs/heads/'.length))
  for (const row of await findOpenMergeRequestsFromBranches(ctx.db, project.id, branches)) {
    const target = row.project_id === project.id ? project : (await findProjectsByIds(ctx.db, [row.project_id]))[0]
    if (target) await loadBranches(ctx, row, target)
  }
}

/** One ref a push moved: its full name and its values before and after (all zeros: none). */
export interface RefUpdate {
  ref: string
  before: string
  after: string
}

/**
 * GL MergeRequests::RefreshService#execute_mr_web_hooks: a push to the source branch of open merge requests updates
 * each of them, told with the branch's previous head as `oldrev` (none when the branch is new). Call it in the
 * transaction that records the push.
 */
export async function noticeSourceBranchPushes(
  ctx: Context,
  trx: Db,
  project: ProjectRow,
  push: { actorId: number; at: Date; updates: readonly RefUpdate[] },
): Promise<void> {
  const byBranch = new Map(
    push.updates.filter((update) => update.ref.startsWith('refs/heads/')).map((update) => [update.ref.slice('refs/heads/'.length), update]),
  )
  for (const row of await findOpenMergeRequestsFromBranches(trx, project.id, [...byBranch.keys()])) {
    const before = byBranch.get(row.source_branch)!.before
    await noticeChange(ctx, trx, {
      kind: 'merge_request',
      action: 'update',
      projectId: row.project_id,
      mergeRequestId: row.id,
      actorId: push.actorId,
      changes: {},
      ...(/^0+$/.test(before) ? {} : { oldrev: before }),
      at: push.at,
    })
  }
}
