import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { ActionNotAllowed, Conflict, Unauthorized, Unprocessable } from '../../core/errors.js'
import type { MergeRequestRow, ProjectRow, UserRow } from '../../db/schema.js'
import { recordPushEvent } from '../event-log/index.js'
import { noticeChange } from '../change-notices/index.js'
import { mergeRequestWire, recordStateChange, stateChanges } from '../issuables/index.js'
import {
  countNewCommits,
  moveRefIfUnchanged,
  readBranchHead,
  readCommit,
  refreshRepositoryState,
  writeCommitObject,
  type GitIdentity as Identity,
} from '../repositories/index.js'
import { findUsersByIds } from '../users/index.js'
import { pushPayload } from './branch-push.js'
import { closeIssuesAfterMerge } from './closing-issues.js'
import {
  commitsBehindOf,
  detailedMergeStatusOf,
  loadBranches,
  mergeChecksInputOf,
  squashesOnMerge,
  type LoadedBranches,
} from './mergeability.js'
import { isRebaseInProgress, sourceBranchAccess } from './rebase.js'
import { deleteRef, mergeRequestHeadRef, mergeTree, writeRef } from './repository.js'
import { canBeMergedBy, showMergeRequest, type MergeRequestView } from './service.js'
import { findMergeRequestApprovals, updateMergeRequestRow } from './store.js'
import { canMerge, canPushCode, findMergeRequest, type LoadedProject, withAccess } from '../access/index.js'
import { isBranchProtected, loadRefSubject } from '../protected-refs/index.js'

export interface MergeInput {
  mergeCommitMessage?: string
  squashCommitMessage?: string
  shouldRemoveSourceBranch?: boolean
  /** `auto_merge`, or the deprecated `merge_when_pipeline_succeeds`. */
  autoMerge: boolean
  sha?: string
  squash?: boolean
}

// GL API::Helpers `execute_immediate_merge!`: a merge that could not be done.
const CANNOT_MERGE = 'Branch cannot be merged'

function identityOf(user: UserRow): Identity {
  return { name: user.name, email: user.commit_email ?? user.email }
}

/** GL Gitlab::MergeRequests::MessageGenerator: the placeholders svc can fill; others are left as written. */
function fillTemplate(template: string, values: Record<string, string>): string {
  const filled = template.replace(/%\{([a-z_]+)\}/g, (whole, key: string) => (key in values ? values[key] : whole))
  // Lines left empty by empty placeholders collapse, as GitLab's generator does.
  return filled
    .replace(/\r/g, '')
    .replace(/\n\s*\n(\s*\n)+/g, '\n\n')
    .trimEnd()
}

function templateValues(
  row: MergeRequestRow,
  project: ProjectRow,
  mergedBy: User,
  author: UserRow,
  approvers: readonly UserRow[],
  externalUrl: string,
) {
  return {
    source_branch: row.source_branch,
    target_branch: row.target_branch,
    title: row.title,
    description: row.description ?? '',
    reference: `${project.full_path}!${row.iid}`,
    local_reference: `!${row.iid}`,
    source_project_id: String(row.source_project_id ?? row.project_id),
    url: `${externalUrl}/${project.full_path}/-/merge_requests/${row.iid}`,
    merged_by: `${mergedBy.name} <${mergedBy.commit_email ?? mergedBy.email}>`,
    merge_request_author: `${author.name} <${author.commit_email ?? author.email}>`,
    issues: '',
    reviewed_by: '',
    approved_by: approvers.map((approver) => `Approved-by: ${approver.name} <${approver.commit_email ?? approver.email}>`).join('\n'),
    co_authored_by: '',
  }
}

/** GL MergeRequest#approved_by_users: the template's `%{approved_by}` lists them, oldest approval first. */
async function approversOf(ctx: Context, row: MergeRequestRow): Promise<UserRow[]> {
  return (await findMergeRequestApprovals(ctx.db, row.id)).map((approval) => approval.user)
}

/** GL MergeRequest#default_merge_commit_message: the project's template, or "Merge branch …", the title and the reference. */
function defaultMergeCommitMessage(row: MergeRequestRow, project: ProjectRow, values: Record<string, string>): string {
  if (project.merge_commit_template) return fillTemplate(project.merge_commit_template, values)
  return `Merge branch '${row.source_branch}' into '${row.target_branch}'\n\n${row.title}\n\nSee merge request ${values.reference}`
}

/** GL MergeRequest#default_squash_commit_message: the project's template, or the title. */
function defaultSquashCommitMessage(row: MergeRequestRow, project: ProjectRow, values: Record<string, string>): string {
  if (project.squash_commit_template) return fillTemplate(project.squash_commit_template, values)
  return row.title
}

interface GitMerge {
  /** The new head of the target branch. */
  head: string
  mergeCommitSha: string | null
  squashCommitSha: string | null
}

/**
 * GL MergeStrategies::FromSourceBranch without a working tree: an optional squash commit (the source's tree on the merge
 * base, authored by the merge request's author), then a merge commit by the merging user, or a fast-forward when the
 * project merges fast-forward only. The target branch moves only if nobody pushed to it meanwhile.
 */
async function mergeInRepository(
  branches: LoadedBranches,
  row: MergeRequestRow,
  project: ProjectRow,
  messages: { merge: string; squash: string | null },
  people: { merger: Identity; author: Identity },
  at: Date,
): Promise<GitMerge | null> {
  const { targetDir, facts } = branches
  const targetSha = facts.targetSha!
  let source = facts.sourceSha!
  let squashCommitSha: string | null = null
  if (messages.squash !== null) {
    const sourceCommit = await readCommit(targetDir, source)
    if (!sourceCommit) return null
    squashCommitSha = await writeCommitObject(targetDir, {
      tree: sourceCommit.tree,
      parents: [facts.baseSha!],
      message: messages.squash,
      author: people.author,
      committer: people.merger,
      at,
    })
    source = squashCommitSha
  }
  let head = source
  let mergeCommitSha: string | null = null
  if (project.merge_method !== 'ff') {
    const tree = await mergeTree(targetDir, targetSha, source)
    if (tree === null) return null
    head = await writeCommitObject(targetDir, {
      tree,
      parents: [targetSha, source],
      message: messages.merge,
      author: people.merger,
      committer: people.merger,
      at,
    })
    mergeCommitSha = head
  }
  if (!(await moveRefIfUnchanged(targetDir, `refs/heads/${row.target_branch}`, head, targetSha))) return null
  return { head, mergeCommitSha, squashCommitSha }
}

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/merge (GL API::MergeRequests and MergeRequests::MergeService).
 * Refusals in GitLab's order: 401 for who may not merge, 409 for a stale `sha`, 405 for a merge request that is not
 * mergeable, 422 when the merge itself fails. There are no pipelines, so auto-merge has no strategy to wait with and the
 * merge happens now when it can (GL `execute_merge` with no preferred strategy and no pipeline).
 */
export async function mergeMergeRequest(ctx: Context, loaded: LoadedProject, iid: number, input: MergeInput): Promise<MergeRequestView> {
  const found = await findMergeRequest(ctx, loaded, iid)
  const user = ctx.caller.user
  if (!user || !canMerge(loaded.access, loaded.project)) throw new Unauthorized()
  const { project } = loaded
  if (!(await canBeMergedBy(ctx, loaded, found))) throw new Unauthorized()
  const branches = await loadBranches(ctx, found, project)
  const diffHeadSha = branches?.facts.sourceSha ?? null
  if (input.sha !== undefined && input.sha !== diffHeadSha) {
    throw new Conflict(`SHA does not match HEAD of source branch: ${diffHeadSha ?? ''}`)
  }
  const now = ctx.now()
  // GL `merge_request.update(squash: params[:squash]) if params[:squash]`: kept even when the merge then fails.
  const row = input.squash && found.squash !== 1 ? await updateMergeRequestRow(ctx.db, found.id, { squash: 1 }) : found
  const checks = await mergeChecksInputOf(ctx, row, project)
  if (branches === null || detailedMergeStatusOf(row, project, branches, checks) !== 'mergeable') {
    if (input.autoMerge) throw new Unprocessable(CANNOT_MERGE)
    throw new ActionNotAllowed()
  }
  // A read-only repository (a storage move under way) refuses the ref update as its hooks refuse pushes.
  if (project.repository_read_only === 1) throw new Unprocessable(CANNOT_MERGE)
  const sourceSha = branches.facts.sourceSha!
  const [author = user] = await findUsersByIds(ctx.db, [row.author_id])
  const values = templateValues(row, project, user, author, await approversOf(ctx, row), ctx.config.externalUrl)
  const messages = {
    merge: input.mergeCommitMessage ?? defaultMergeCommitMessage(row, project, values),
    squash: squashesOnMerge(project, row) ? (input.squashCommitMessage ?? defaultSquashCommitMessage(row, project, values)) : null,
  }
  // The head ref keeps the merged commits reachable, and the entity's sha, once the source branch is gone.
  const headRef = mergeRequestHeadRef(row.iid)
  await writeRef(branches.targetDir, headRef, sourceSha)
  const merged = await mergeInRepository(branches, row, project, messages, { merger: identityOf(user), author: identityOf(author) }, now)
  if (merged === null) throw new Unprocessable(CANNOT_MERGE)
  const newCommits = await countNewCommits(branches.targetDir, merged.head, branches.facts.targetSha!)
  const headMessage = (await readCommit(branches.targetDir, merged.head))?.message ?? null
  const noteable = { type: 'MergeRequest' as const, id: row.id, projectId: project.id }
  const saved = await ctx.db.transaction().execute(async (trx) => {
    const updated = await updateMergeRequestRow(trx, row.id, {
      state: 'merged',
      merged_at: now.toISOString(),
      merged_by_id: user.id,
      merge_commit_sha: merged.mergeCommitSha,
      squash_commit_sha: merged.squashCommitSha,
      updated_at: now.toISOString(),
    })
    await recordPushEvent(trx, {
      projectId: project.id,
      authorId: user.id,
      at: now,
      payload: pushPayload(row.target_branch, 'pushed', branches.facts.targetSha, merged.head, newCommits, headMessage),
    })
    // GitLab's merge is a push to the target branch too, heard by push hooks.
    const ref = `refs/heads/${row.target_branch}`
    await noticeChange(ctx, trx, {
      kind: 'push',
      projectId: project.id,
      actorId: user.id,
      ref,
      before: branches.facts.targetSha!,
      after: merged.head,
      at: now,
    })
    await recordStateChange(trx, noteable, user.id, 'merged', now)
    const changes = stateChanges(mergeRequestWire(row), mergeRequestWire(updated))
    await noticeChange(ctx, trx, {
      kind: 'merge_request',
      action: 'merge',
      projectId: project.id,
      mergeRequestId: row.id,
      actorId: user.id,
      changes,
      at: now,
    })
    return updated
  })
  await refreshRepositoryState(ctx.db, ctx.config, project)
  // The merge is done whatever happens to the issues it closes (GitLab closes them in a worker after the merge).
  await closeIssuesAfterMerge(ctx, loaded, saved).catch((error: unknown) =>
    ctx.log.error({ err: error, mergeRequestId: saved.id }, 'closing the issues of a merged merge request failed'),
  )
  if (input.shouldRemoveSourceBranch ?? row.remove_source_branch === 1) await removeSourceBranch(ctx, user, saved, branches, sourceSha)
  return showMergeRequest(ctx, loaded, saved)
}

/**
 * GL MergeRequest#can_remove_source_branch? and DeleteSourceBranchWorker: the merging user may push to the source
 * project, the branch is neither protected nor that project's default branch, and it has not moved since the merge.
 */
async function removeSourceBranch(ctx: Context, user: User, row: MergeRequestRow, branches: LoadedBranches, mergedSha: string) {
  const source = branches.sourceProject
  if (!source || branches.sourceDir === null || source.default_branch === row.source_branch) return
  if (source.repository_read_only === 1) return
  const loadedSource = await withAccess(ctx, source)
  if (!canPushCode(loadedSource.access, source)) return
  if (isBranchProtected(await loadRefSubject(ctx, loadedSource), row.source_branch)) return
  if ((await readBranchHead(branches.sourceDir, row.source_branch)) !== mergedSha) return
  if (!(await deleteRef(branches.sourceDir, `refs/heads/${row.source_branch}`, mergedSha))) return
  const now = ctx.now()
  await ctx.db.transaction().execute(async (trx) => {
    await recordPushEvent(trx, {
      projectId: source.id,
      authorId: user.id,
      at: now,
      payload: pushPayload(row.source_branch, 'removed', mergedSha, null, 0, null),
    })
    const ref = `refs/heads/${row.source_branch}`
    await noticeChange(ctx, trx, {
      kind: 'push',
      projectId: source.id,
      actorId: user.id,
      ref,
      before: mergedSha,
      after: '0'.repeat(mergedSha.length),
      at: now,
    })
  })
  await refreshRepositoryState(ctx.db, ctx.config, source)
}

/** What the merge request page's merge panel shows and offers the caller. */
export interface MergePanel {
  view: MergeRequestView
  /** GL MergeRequest#diverged_commits_count. */
  commitsBehind: number
  /** The messages the merge would write unless edited (GL default_merge_commit_message, default_squash_commit_message). */
  mergeMessage: string
  squashMessage: string
  /** GL MergeRequest#can_remove_source_branch?(current_user). */
  mayRemoveSourceBranch: boolean
  /** Whether the branches are there (GL MergeRequest#source_branch_exists?, #target_branch_exists?); null once closed or merged. */
  sourceBranchExists: boolean | null
  targetBranchExists: boolean | null
  /** GL MergeRequest#rebase_in_progress?. */
  rebaseInProgress: boolean
  /** GL MergeRequest#can_push_to_source_branch?: the caller may rebase it. */
  mayRebase: boolean
}

/** The merge request as the merge panel shows it to the caller, its repository read once. */
export async function showMergePanel(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<MergePanel> {
  const branches = row.state === 'opened' ? await loadBranches(ctx, row, loaded.project) : null
  const view = await showMergeRequest(ctx, loaded, row, branches)
  const user = ctx.caller.user
  const [author = view.author] = await findUsersByIds(ctx.db, [row.author_id])
  const values = user ? templateValues(row, loaded.project, user, author, await approversOf(ctx, row), ctx.config.externalUrl) : null
  return {
    view,
    commitsBehind: await commitsBehindOf(branches),
    mergeMessage: values ? defaultMergeCommitMessage(row, loaded.project, values) : '',
    squashMessage: values ? defaultSquashCommitMessage(row, loaded.project, values) : '',
    mayRemoveSourceBranch: user !== null && branches !== null && (await mayRemoveSourceBranch(ctx, row, branches)),
    sourceBranchExists:
      branches === null ? null : branches.sourceDir !== null && (await readBranchHead(branches.sourceDir, row.source_branch)) !== null,
    targetBranchExists: branches === null ? null : branches.facts.targetSha !== null,
    rebaseInProgress: row.state === 'opened' && (await isRebaseInProgress(ctx.db, row)),
    mayRebase: row.state === 'opened' && user !== null && (await sourceBranchAccess(ctx, row, loaded.project)) === 'allowed',
  }
}

/** GL MergeRequest#can_remove_source_branch?: the caller may push to the source project, and the branch is neither protected nor its default. */
async function mayRemoveSourceBranch(ctx: Context, row: MergeRequestRow, branches: LoadedBranches): Promise<boolean> {
  const source = branches.sourceProject
  if (!source || source.default_branch === row.source_branch || branches.facts.sourceSha === null) return false
  const loadedSource = await withAccess(ctx, source)
  return canPushCode(loadedSource.access, source) && !isBranchProtected(await loadRefSubject(ctx, loadedSource), row.source_branch)
}
