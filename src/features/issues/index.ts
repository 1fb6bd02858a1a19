export { findIssuesByIds, insertIssue, updateIssueRow } from './store.js'
