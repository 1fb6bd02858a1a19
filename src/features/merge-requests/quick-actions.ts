import type { Context } from '../../core/context.js'
import { DomainError } from '../../core/errors.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { canMerge, findMergeRequestByIid, type LoadedProject } from '../access/index.js'
import type { ReadNoteCommands } from '../notes/index.js'
import {
  interpretDescription,
  mayHoldQuickActions,
  noteCommandsOf,
  withCommandUpdates,
  type Interpretation,
  type MergeRequestTarget,
} from '../quick-actions/index.js'
import { approveMergeRequest, mayApprove, showApprovalState, unapproveMergeRequest } from './approvals.js'
import { mergeMergeRequest } from './merging.js'
import { mergeRequestViewsOf, showMergeRequest, updateMergeRequest, type MergeRequestInput, type MergeRequestView } from './service.js'

// Quick actions on merge requests: what a description's or a comment's commands change, merged into the same update
// the merge request's form and PUT make; /approve and /unapprove approve as the API does, and /merge merges as the
// merge button does (GL MergeRequests::UpdateService with `merge`, MergeRequests::ApprovalService).

/** The merge request as the commands see it before they run; null while it is being created. */
export function mergeRequestTargetOf(ctx: Context, loaded: LoadedProject, view: MergeRequestView | null): MergeRequestTarget {
  if (!view) {
    const nothing = { mayMerge: false, headSha: null, mayApprove: false, mayUnapprove: false }
    const parts = { labels: [], assignees: [], milestone: null, reviewers: [] }
    return { type: 'MergeRequest', loaded, mergeRequest: null, ...parts, reviewState: () => Promise.resolve(nothing) }
  }
  const row = view.mergeRequest
  return {
    type: 'MergeRequest',
    loaded,
    mergeRequest: row,
    labels: view.labels,
    assignees: view.assignees,
    milestone: view.milestone,
    reviewers: view.reviewers.map((reviewer) => reviewer.user),
    reviewState: async () => {
      const [shown, approvals, approver] = await Promise.all([
        showMergeRequest(ctx, loaded, row),
        showApprovalState(ctx, loaded, row),
        mayApprove(ctx, loaded, row),
      ])
      return {
        mayMerge:
          canMerge(loaded.access, loaded.project) &&
          shown.detail?.canMerge === true &&
          shown.mergeability?.detailedMergeStatus === 'mergeable',
        headSha: shown.mergeability?.sha ?? shown.sha,
        mayApprove: approver && !approvals.userHasApproved,
        mayUnapprove: approver && approvals.userHasApproved,
      }
    },
  }
}

/**
 * A description's commands: the description without them, their changes merged into the input, and the approval they
 * ask for, which is not part of the update.
 */
export async function withDescriptionCommands<T extends MergeRequestInput>(
  ctx: Context,
  target: MergeRequestTarget,
  input: T,
  original: string | null,
): Promise<{ input: T; approval: Interpretation['approval'] }> {
  const interpretation = await interpretDescription(ctx, target, input.description, original)
  if (!interpretation) return { input, approval: undefined }
  return {
    input: { ...withCommandUpdates(input, interpretation), description: interpretation.content },
    approval: interpretation.approval,
  }
}

/** /approve or /unapprove: done as the API does it; one that cannot be done (approved already) changes nothing. */
export async function applyApproval(ctx: Context, loaded: LoadedProject, row: MergeRequestRow, approval: Interpretation['approval']) {
  try {
    if (approval === 'approve') await approveMergeRequest(ctx, loaded, row, {})
    if (approval === 'unapprove') await unapproveMergeRequest(ctx, loaded, row)
  } catch (error) {
    if (!(error instanceof DomainError)) throw error
  }
}

/** GL Notes::QuickActionsService#apply_updates for a merge request: approval first, then the update, then the merge. */
async function applyNoteCommands(ctx: Context, loaded: LoadedProject, row: MergeRequestRow, interpretation: Interpretation) {
  await applyApproval(ctx, loaded, row, interpretation.approval)
  const input = withCommandUpdates<MergeRequestInput>({}, interpretation)
  if (Object.keys(input).length > 0) await updateMergeRequest(ctx, loaded, row.iid, input)
  const sha = interpretation.updates.merge
  if (sha === undefined) return
  // GitLab merges in a worker after the comment is saved: a merge that fails then leaves the comment as it is.
  await mergeMergeRequest(ctx, loaded, row.iid, { autoMerge: false, sha }).catch((error: unknown) => {
    if (!(error instanceof DomainError)) throw error
    ctx.log.warn({ err: error, mergeRequestId: row.id }, 'the /merge quick action could not merge')
  })
}

/**
 * The quick actions of a comment on a merge request, for the notes feature: the commands read against the merge
 * request as it is, applied afterwards through its own update, approvals and merge (each leaving its system note).
 */
export const readMergeRequestNoteCommands: ReadNoteCommands = async (ctx, target, body, _spam, options = {}) => {
  if (target.noteable.type !== 'MergeRequest' || !mayHoldQuickActions(body)) return null
  const { loaded } = target
  const row = await findMergeRequestByIid(ctx.db, loaded.project.id, target.iid)
  if (!row) return null
  const [view] = await mergeRequestViewsOf(ctx, [row])
  return noteCommandsOf(ctx, mergeRequestTargetOf(ctx, loaded, view), body, options, (interpretation) =>
    applyNoteCommands(ctx, loaded, row, interpretation),
  )
}
