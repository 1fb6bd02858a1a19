import type { Context } from '../../core/context.js'
import type { ProjectRow } from '../../db/schema.js'
import { findProjectsByIds } from '../access/index.js'
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
