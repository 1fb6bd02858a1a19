/** Commit entities other features show (tags, branches, commit actions, merge requests), and reads of commits. */
export { CommitDetailJson, CommitJson, CommitStatsJson, DiffJson } from './schemas.js'
export {
  commitTitle,
  parseTrailers,
  presentCommit,
  presentCommitDetail,
  presentDiff,
  shortCommitId,
  type CommitDetailPresentOptions,
  type CommitPresentOptions,
} from './present.js'
export { commitDiffOf, commitRefsOf, commitStatsOf, findProjectCommit, listCommits, pageOfArray, type ListCommitsInput } from './service.js'
export { compareRefs, type Comparison } from './compare.js'
