import { isAdmin } from '../../core/caller.js'
import type { IssueRow, ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import { canAdminIssues, isFeatureAvailable } from '../projects/policy.js'

/** GL `read_issue` on the project: it is readable and its issues feature is available to the caller. */
export function canReadProjectIssues(access: ProjectAccess, project: ProjectRow): boolean {
  return isFeatureAvailable(access, project, 'issues')
}

/** GL `read_confidential_issues`: Planner, Reporter and up, and administrators. */
export function canReadConfidentialIssues(access: ProjectAccess): boolean {
  return canAdminIssues(access)
}

/** GL IssuePolicy `read_issue`: a confidential issue only for its author, its assignees and those who may read confidential issues. */
export function canReadIssue(access: ProjectAccess, project: ProjectRow, issue: IssueRow, assigneeIds: readonly number[]): boolean {
  if (!canReadProjectIssues(access, project)) return false
  if (!issue.confidential || isAdmin(access.caller) || canReadConfidentialIssues(access)) return true
  const user = access.caller.user
  return user !== null && (issue.author_id === user.id || assigneeIds.includes(user.id))
}
