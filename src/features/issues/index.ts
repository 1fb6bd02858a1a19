export {
  canOpenIncidentIn,
  closeIncident,
  isOpenIncident,
  openIncident,
  type IncidentCloseReason,
  type OpenIncidentInput,
} from './incidents.js'

// What the issue pages show, read as the API reads it.
export { issueViewsOf, listProjectIssues, type IssueView, type ListIssuesInput } from './service.js'
export { listIssues } from './service.js'

// Quick actions in comments: the notes feature reads them through this.
export { readIssueNoteCommands } from './quick-actions.js'

// Merging a merge request closes the issues it names with a closing keyword; GET …/closes_issues lists them.
export { closeIssueViaMergeRequest } from './closing.js'
export { presentIssueBasic } from './present.js'
export { IssueBasicJson } from './schemas.js'

// The issue pages act through the API's own use cases.
export { createIssue, findProjectIssueById, updateIssue, type IssueInput } from './service.js'
