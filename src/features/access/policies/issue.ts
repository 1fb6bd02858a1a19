import { AccessLevel } from '../../../core/access.js'
import { isAdmin } from '../../../core/caller.js'
import type { IssueRow, ProjectRow } from '../../../db/schema.js'
import type { ProjectAccess } from '../roles.js'
import { canAdminIssues, isFeatureAvailable } from './project.js'

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

/** GL `create_issue`: any signed-in user who can read the project's issues. */
export function canCreateIssue(access: ProjectAccess, project: ProjectRow): boolean {
  return access.caller.user !== null && canReadProjectIssues(access, project)
}

/** GL `update_issue`: Planner, Reporter and up, or the issue's author or an assignee who can read it. */
export function canUpdateIssue(access: ProjectAccess, project: ProjectRow, issue: IssueRow, assigneeIds: readonly number[]): boolean {
  const user = access.caller.user
  if (!user || !canReadIssue(access, project, issue, assigneeIds)) return false
  return canAdminIssues(access) || issue.author_id === user.id || assigneeIds.includes(user.id)
}

/** GL `admin_issue` (and `set_issue_metadata`, `set_confidentiality`): labels, assignees, milestone and confidentiality. */
export function canSetIssueMetadata(access: ProjectAccess, project: ProjectRow): boolean {
  return canReadProjectIssues(access, project) && canAdminIssues(access)
}

/** GL `create_incident`: Reporter and up. */
export function canCreateIncident(access: ProjectAccess): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.REPORTER)
}

/** GL `destroy_issue` and `set_issue_created_at`: the project's Owner, or an administrator. */
export function canOwnIssues(access: ProjectAccess): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.OWNER)
}
