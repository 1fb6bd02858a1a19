import type { Caller, User } from '../../../core/caller.js'
import { isAdmin } from '../../../core/caller.js'
import type { IssueRow, NoteRow, ProjectRow } from '../../../db/schema.js'
import type { ProjectAccess } from '../roles.js'
import { canReadConfidentialIssues, canReadIssue } from './issue.js'
import { canReadMergeRequests } from './merge-request.js'
import { canReadMilestones } from './milestone.js'
import { canReadCode } from './project.js'
import { EventAction } from '../../../core/event-actions.js'

/** GL UserPolicy `read_user_profile`: a private profile's events are for the user and administrators only. */
export function canReadUserEvents(viewer: Caller, user: User): boolean {
  return user.private_profile !== 1 || isAdmin(viewer) || viewer.user?.id === user.id
}

/** What deciding an event's visibility needs about its target, loaded for the whole page. */
export interface EventTargetFacts {
  project: ProjectRow
  access: ProjectAccess
  issue?: IssueRow
  issueAssigneeIds?: readonly number[]
  mergeRequest?: { id: number }
  milestone?: { id: number }
  note?: NoteRow
}

/** Whether an event shows, as GL Event#visible_to_user? asks the ability its kind needs (`capabilities`). */
export function canReadEvent(
  event: { action: number; target_type: string | null; target_id: number | null },
  facts: EventTargetFacts,
): boolean {
  const { access, project } = facts
  if (event.action === EventAction.pushed) return canReadCode(access, project)
  if (event.target_type === null || event.target_id === null) {
    // Membership changes and project creation need only read_project, which the list already required.
    const membership = event.action === EventAction.joined || event.action === EventAction.left || event.action === EventAction.expired
    return membership || (event.action === EventAction.created && event.target_type === null)
  }
  switch (event.target_type) {
    case 'Issue':
      return facts.issue !== undefined && canReadIssue(access, project, facts.issue, facts.issueAssigneeIds ?? [])
    case 'MergeRequest':
      return facts.mergeRequest !== undefined && canReadMergeRequests(access, project)
    case 'Milestone':
      return facts.milestone !== undefined && canReadMilestones(access, project)
    case 'Note':
      return facts.note !== undefined && canReadNote(facts)
    default:
      // Snippets, wiki pages and designs are not kept, so their events have nothing to show.
      return false
  }
}

/** GL NotePolicy `read_note`: the noteable must be readable; internal notes need Planner, Reporter or more. */
function canReadNote(facts: EventTargetFacts): boolean {
  const { note, access, project } = facts
  if (!note) return false
  if (note.internal === 1 && !canReadConfidentialIssues(access)) return false
  if (note.issue_id !== null) return facts.issue !== undefined && canReadIssue(access, project, facts.issue, facts.issueAssigneeIds ?? [])
  if (note.merge_request_id !== null) return facts.mergeRequest !== undefined && canReadMergeRequests(access, project)
  return false
}
