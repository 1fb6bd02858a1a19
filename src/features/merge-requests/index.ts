/** What other features use of merge requests. */
import { handle, type JobHandler } from '../../jobs/index.js'
import { RebaseMergeRequest } from './jobs.js'
import { runRebase } from './rebase.js'
export { noticeSourceBranchPushes, recordVersionsAfterPush, type RefUpdate } from './refresh.js'

// What the merge request pages show, read as the API reads it.
export { listMergeRequestCommits, listMergeRequestDiffs, listMergeRequestVersions } from './review.js'
export { listProjectMergeRequests, mergeRequestViewsOf, type ListMergeRequestsInput, type MergeRequestView } from './service.js'
export { listMergeRequests } from './service.js'

// The merge request pages act through the API's own use cases: create, edit, close and reopen, merge, threads.
export { createMergeRequest, isDraftTitle, showMergeRequest, updateMergeRequest, type MergeRequestInput } from './service.js'
export { draftTitleOf, setMergeRequestDraft } from './service.js'

// Quick actions in merge request comments, read for the notes feature.
export { readMergeRequestNoteCommands } from './quick-actions.js'
export { mergeMergeRequest, showMergePanel, type MergeInput, type MergePanel } from './merging.js'
export { requiresFastForward, squashesOnMerge } from './mergeability.js'
export { diffNoteThread, type DiffPositionInput } from './discussions.js'
export { closingIssuesOf } from './closing-issues.js'
export type { ReadableIssue as ClosingIssue } from './issue-references.js'
export { approveMergeRequest, showApprovalState, unapproveMergeRequest, type ApprovalState } from './approvals.js'
export { isRebaseInProgress, requestRebase, sourceBranchAccess } from './rebase.js'

/** The rebase job, run by every node's worker. */
export const jobHandlers: JobHandler[] = [
  handle(RebaseMergeRequest, (ctx, payload) => runRebase(ctx, payload.mergeRequestId, payload.userId)),
]
