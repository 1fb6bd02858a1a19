/** Commits written through the API: file actions, cherry-picks and reverts; the files API writes through them too. */
export { contentOf, decodeBase64 } from './actions.js'
export { isPlainRevision, lastCommitForPath, readBranchHead, readNamedCommit } from './repository.js'
export {
  codeDirectory,
  commitChanges,
  NOT_ALLOWED_TO_PUSH,
  type CommitChangesInput,
  type LastCommitCheck,
  type WrittenCommit,
} from './service.js'
