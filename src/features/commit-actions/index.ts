/** Commits written through the API: file actions, cherry-picks and reverts; the files API writes through them too. */
export { contentOf } from './actions.js'
export { lastCommitForPath } from './repository.js'
export { commitChanges, type CommitChangesInput, type LastCommitCheck, type WrittenCommit } from './service.js'
