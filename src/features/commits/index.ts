/** Commit entities other features show (tags, branches, commit actions, merge requests), and reads of commits. */
export { CommitDetailJson, CommitJson, CommitStatsJson } from './schemas.js'
export {
  commitTitle,
  parseTrailers,
  presentCommit,
  presentCommitDetail,
  shortCommitId,
  type CommitDetailPresentOptions,
  type CommitPresentOptions,
} from './present.js'
export { pageOfArray } from './service.js'
