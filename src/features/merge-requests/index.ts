/** What other features use of merge requests. */
export { recordVersionsAfterPush } from './refresh.js'

// What the merge request pages show, read as the API reads it.
export { listMergeRequestCommits, listMergeRequestDiffs, listMergeRequestVersions } from './review.js'
export { listProjectMergeRequests, mergeRequestViewsOf, type ListMergeRequestsInput, type MergeRequestView } from './service.js'
export { listMergeRequests } from './service.js'
