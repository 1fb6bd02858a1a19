/** What other features use of merge requests. */
export { recordVersionsAfterPush } from './refresh.js'
