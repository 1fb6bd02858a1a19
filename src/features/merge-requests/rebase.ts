import type { Context } from '../../core/context.js'
import { Conflict, Forbidden } from '../../core/errors.js'
import type { MergeRequestRow, ProjectRow } from '../../db/schema.js'
import { enqueueJob, findJobById, wakeJobWorkers, type JobContext } from '../../jobs/index.js'
import type { Db } from '../../db/index.js'
import { findProjectsByIds, withAccess, type LoadedProject } from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { recordPushEvent } from '../event-log/index.js'
import { canPushToBranch, loadRefSubject, refChangeRefusal } from '../protected-refs/index.js'
import {
  countNewCommits,
  identityOf,
  isAncestor,
  moveRefIfUnchanged,
  projectRepositoryDirectory,
  readBranchHead,
  readCommit,
  refreshRepositoryState,
  repositoryExists,
} from '../repositories/index.js'
import { findUsersByIds } from '../users/index.js'
import { RebaseMergeRequest } from './jobs.js'
import { pushPayload } from './branch-push.js'
import { noticeSourceBranchPushes, recordVersionsAfterPush } from './refresh.js'
import { fetchBranchInto, rebaseCommits } from './repository.js'
import { findMergeRequestById, finishMergeRequestRebase, lockMergeRequestRow, updateMergeRequestRow } from './store.js'

// GL MergeRequest#rebase_async, RebaseWorker and MergeRequests::RebaseService: the source branch rebased onto the
// target branch in a job, `rebase_in_progress` while it runs, and `merge_error` saying why it failed.

/** GL MergeRequests::RebaseService::REBASE_ERROR: whatever went wrong in git. */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.'

/** GL API's answer to ActiveRecord::StaleObjectError, which `rebase_async` raises for a closed one or a second rebase. */
const RESOURCE_LOCK = '409 Conflict: Resource lock'

/** GL MergeRequest#rebase_in_progress?: its rebase job is queued or running. */
export async function isRebaseInProgress(db: Db, row: MergeRequestRow): Promise<boolean> {
  if (row.rebase_job_id === null) return false
  const job = await findJobById(db, row.rebase_job_id)
  return job !== undefined && (job.state === 'queued' || job.state === 'running')
}

async function sourceProjectOf(ctx: Context, row: MergeRequestRow, target: ProjectRow): Promise<ProjectRow | null> {
  const id = row.source_project_id ?? row.project_id
  if (id === target.id) return target
  return (await findProjectsByIds(ctx.db, [id]))[0] ?? null
}

/**
 * GL MergeRequest#source_branch_exists? and can_push_to_source_branch? for the caller: 'missing' without the branch,
 * else whether they may push to it in the source project, under its protected branches.
 */
export async function sourceBranchAccess(
  ctx: Context,
  row: MergeRequestRow,
  target: ProjectRow,
): Promise<'missing' | 'denied' | 'allowed'> {
  const source = await sourceProjectOf(ctx, row, target)
  if (!source) return 'missing'
  const directory = projectRepositoryDirectory(ctx.config, source)
  if (!(await repositoryExists(directory)) || (await readBranchHead(directory, row.source_branch)) === null) return 'missing'
  if (!ctx.caller.user) return 'denied'
  const loadedSource = await withAccess(ctx, source)
  return canPushToBranch(await loadRefSubject(ctx, loadedSource), row.source_branch) ? 'allowed' : 'denied'
}

/**
 * PUT …/merge_requests/:iid/rebase (GL `authorize_push_to_merge_request!`, then MergeRequest#rebase_async): 403 when
 * the source branch is gone or the caller may not push to it, 409 for a merge request that is not open or whose
 * rebase is under way; else the rebase job is queued.
 */
export async function requestRebase(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  input: { skipCi: boolean },
): Promise<MergeRequestRow> {
  const access = await sourceBranchAccess(ctx, row, loaded.project)
  if (access === 'missing') throw new Forbidden('Source branch does not exist')
  if (access === 'denied') throw new Forbidden('Cannot push to source branch')
  const user = ctx.caller.user!
  const queued = await ctx.db.transaction().execute(async (trx) => {
    const current = await lockMergeRequestRow(trx, row.id)
    if (!current || current.state !== 'opened' || (await isRebaseInProgress(trx, current))) throw new Conflict(RESOURCE_LOCK)
    const payload = { mergeRequestId: row.id, userId: user.id, skipCi: input.skipCi }
    const jobId = await enqueueJob(trx, RebaseMergeRequest, payload, { now: ctx.now() })
    return updateMergeRequestRow(trx, row.id, { rebase_job_id: jobId })
  })
  wakeJobWorkers()
  return queued
}

/** The rebase job: does it unless another job holds the merge request, then records how it ended (a second run does nothing). */
export async function runRebase(ctx: JobContext, mergeRequestId: number, userId: number): Promise<void> {
  const row = await findMergeRequestById(ctx.db, mergeRequestId)
  if (!row || row.rebase_job_id !== ctx.job.id) return
  const failure = await rebaseSourceBranch(ctx, row, userId)
  const changes = failure === null ? { merge_error: null } : { merge_error: failure, updated_at: ctx.now().toISOString() }
  await finishMergeRequestRebase(ctx.db, row.id, ctx.job.id, changes)
}

/**
 * Rebases the source branch as Gitaly's UserRebaseConfirmable does for the user: in the source project's repository,
 * onto the target branch's head, the branch moved only if nobody pushed to it meanwhile and only as its protected
 * branches let the user push (or force-push). Answers null when done, else the merge request's `merge_error`.
 */
async function rebaseSourceBranch(ctx: Context, row: MergeRequestRow, userId: number): Promise<string | null> {
  const [user] = await findUsersByIds(ctx.db, [userId])
  const [target] = await findProjectsByIds(ctx.db, [row.project_id])
  if (!user || !target) return REBASE_ERROR
  const userCtx: Context = { ...ctx, caller: { user, credential: null, sudoFrom: null } }
  const source = await sourceProjectOf(userCtx, row, target)
  if (!source || source.repository_read_only === 1) return REBASE_ERROR
  const sourceDir = projectRepositoryDirectory(ctx.config, source)
  const targetDir = projectRepositoryDirectory(ctx.config, target)
  const ref = `refs/heads/${row.source_branch}`
  const [sourceSha, targetSha] = await Promise.all([
    readBranchHead(sourceDir, row.source_branch),
    readBranchHead(targetDir, row.target_branch),
  ])
  if (sourceSha === null || targetSha === null) return REBASE_ERROR
  if (sourceDir !== targetDir && !(await fetchBranchInto(sourceDir, targetDir, `refs/heads/${row.target_branch}`, targetSha))) {
    return REBASE_ERROR
  }
  const head = await rebaseCommits(sourceDir, sourceSha, targetSha, identityOf(user), ctx.now())
  if (head === null) return REBASE_ERROR
  if (head === sourceSha) return null
  // The hooks judge the new head as a push by the user (GL Gitlab::Checks through Gitaly's pre-receive).
  const forced = !(await isAncestor(sourceDir, sourceSha, head))
  const subject = await loadRefSubject(userCtx, await withAccess(userCtx, source))
  const refusal = refChangeRefusal(subject, ref, forced ? 'force-push' : 'push', 'web', ctx.config.externalUrl)
  if (refusal !== null) return `The rebase pre-receive hook failed: ${refusal}.`
  if (!(await moveRefIfUnchanged(sourceDir, ref, head, sourceSha))) return REBASE_ERROR
  const count = await countNewCommits(sourceDir, head, sourceSha)
  const message = (await readCommit(sourceDir, head))?.message ?? null
  const at = ctx.now()
  await ctx.db.transaction().execute(async (trx) => {
    await recordPushEvent(trx, {
      projectId: source.id,
      authorId: user.id,
      at,
      payload: pushPayload(row.source_branch, 'pushed', sourceSha, head, count, message),
    })
    // GitLab's rebase is a push to the source branch: push hooks hear it, and its merge requests are updated.
    const update = { ref, before: sourceSha, after: head }
    await noticeChange(userCtx, trx, { kind: 'push', projectId: source.id, actorId: user.id, ...update, at })
    await noticeSourceBranchPushes(userCtx, trx, source, { actorId: user.id, at, updates: [update] })
  })
  await refreshRepositoryState(ctx.db, ctx.config, source)
  await recordVersionsAfterPush(userCtx, source, [ref])
  return null
}
