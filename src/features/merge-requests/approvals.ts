import type { Context } from '../../core/context.js'
import { Conflict, Forbidden, RecordNotFound, Unauthorized } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import type { MergeRequestRow, UserRow } from '../../db/schema.js'
import { canApproveMergeRequest, type LoadedProject } from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { createSystemNote } from '../notes/index.js'
import { loadBranches } from './mergeability.js'
import {
  deleteMergeRequestApproval,
  deleteMergeRequestApprovals,
  findMergeRequestApprovals,
  findMergeRequestAssigneeIds,
  insertMergeRequestApproval,
} from './store.js'

// Optional approvals as GitLab Free has them (GL MergeRequests::ApprovalService, RemoveApprovalService): no rules and
// no required count, so a merge request is approved once anyone has approved it, and merging never waits for it.

export interface Approval {
  user: UserRow
  approvedAt: string
}

/** A merge request's approvals as the caller sees them (GL Entities::MergeRequestApprovals). */
export interface ApprovalState {
  approvals: Approval[]
  userHasApproved: boolean
  userCanApprove: boolean
}

/** GL `approve_merge_request` for the caller on this merge request. */
export async function mayApprove(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<boolean> {
  if (!ctx.caller.user) return false
  const assigneeIds = await findMergeRequestAssigneeIds(ctx.db, row.id)
  return canApproveMergeRequest(loaded.access, loaded.project, row, assigneeIds)
}

/** GET …/approvals: who approved, and whether the caller has or could (GL MergeRequest#eligible_for_approval_by?). */
export async function showApprovalState(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<ApprovalState> {
  const approvals = await findMergeRequestApprovals(ctx.db, row.id)
  const userId = ctx.caller.user?.id
  const userHasApproved = userId !== undefined && approvals.some((approval) => approval.user.id === userId)
  return { approvals, userHasApproved, userCanApprove: !userHasApproved && (await mayApprove(ctx, loaded, row)) }
}

/**
 * POST …/approve. Refusals in GitLab's order: 403 for who may not approve (or a merge request that is not open), 409
 * for a `sha` that is not the source branch's head, 401 when the caller approved already.
 */
export async function approveMergeRequest(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  input: { sha?: string },
): Promise<ApprovalState> {
  const user = ctx.caller.user
  if (!user || !(await mayApprove(ctx, loaded, row))) throw new Forbidden()
  if (input.sha !== undefined) {
    const diffHeadSha = (await loadBranches(ctx, row, loaded.project))?.facts.sourceSha ?? null
    if (input.sha !== diffHeadSha) throw new Conflict(`SHA does not match HEAD of source branch: ${diffHeadSha ?? ''}`)
  }
  const now = ctx.now()
  const approved = await ctx.db.transaction().execute(async (trx) => {
    if (!(await insertMergeRequestApproval(trx, row.id, user.id, now.toISOString()))) return false
    await createSystemNote(trx, noteableOf(row), user.id, 'approved this merge request', now)
    // The first approval approves it (no rules, no required count); later ones are one user's approval each.
    const first = (await findMergeRequestApprovals(trx, row.id)).length === 1
    await noticeApproval(ctx, trx, row, first ? 'approved' : 'approval', now)
    return true
  })
  if (!approved) throw new Unauthorized()
  return showApprovalState(ctx, loaded, row)
}

/** POST …/unapprove: 403 for who may not approve, 404 when the caller had not approved. */
export async function unapproveMergeRequest(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<ApprovalState> {
  const user = ctx.caller.user
  if (!user || !(await mayApprove(ctx, loaded, row))) throw new Forbidden()
  const now = ctx.now()
  const removed = await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteMergeRequestApproval(trx, row.id, user.id))) return false
    await createSystemNote(trx, noteableOf(row), user.id, 'unapproved this merge request', now)
    // Removing the last approval unapproves it; removing one of several takes back one user's approval.
    const last = (await findMergeRequestApprovals(trx, row.id)).length === 0
    await noticeApproval(ctx, trx, row, last ? 'unapproved' : 'unapproval', now)
    return true
  })
  if (!removed) throw new RecordNotFound()
  return showApprovalState(ctx, loaded, row)
}

/**
 * PUT …/reset_approvals (GL `reset_merge_request_approvals`): only a bot user (a project or group access token's) that
 * may approve the merge request removes every approval, and never once it is merged; anyone else hears 401.
 */
export async function resetApprovals(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<void> {
  const user = ctx.caller.user
  if (!user || user.bot !== 1 || row.state === 'merged' || !(await mayApprove(ctx, loaded, row))) throw new Unauthorized()
  await deleteMergeRequestApprovals(ctx.db, row.id)
}

/** An approval given or taken back, told as GitLab's approval hooks tell it: nothing of the merge request changed. */
function noticeApproval(
  ctx: Context,
  trx: Db,
  row: MergeRequestRow,
  action: 'approved' | 'approval' | 'unapproved' | 'unapproval',
  at: Date,
) {
  const actorId = ctx.caller.user!.id
  return noticeChange(ctx, trx, {
    kind: 'merge_request',
    action,
    projectId: row.project_id,
    mergeRequestId: row.id,
    actorId,
    changes: {},
    at,
  })
}

function noteableOf(row: MergeRequestRow) {
  return { type: 'MergeRequest' as const, id: row.id, projectId: row.project_id }
}
