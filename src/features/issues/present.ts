import { isoDate } from '../../core/time.js'
import { NO_TIME_STATS, presentLabels, referencesOf, taskCompletionOf } from '../issuables/index.js'
import { presentMilestone } from '../milestones/index.js'
import { presentUserBasic, type PresentOptions } from '../users/index.js'
import type { IssueBasicJson, IssueJson } from './schemas.js'
import type { IssueView, ListOrigin } from './service.js'

export interface IssuePresentOptions extends PresentOptions {
  withLabelsDetails: boolean
  origin: ListOrigin
}

/** GL Entities::IssueBasic (IssuableEntity and IssueBasic), fields in GitLab's order. */
export function presentIssueBasic(view: IssueView, options: IssuePresentOptions): IssueBasicJson {
  const { issue, project } = view
  const base = options.externalUrl
  const assignees = view.assignees.map((user) => presentUserBasic(user, options))
  // GL Gitlab::UrlBuilder: incidents live under issues/incident.
  const webPath = issue.issue_type === 'incident' ? 'issues/incident' : 'issues'
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    closed_by: view.closedBy ? presentUserBasic(view.closedBy, options) : null,
    labels: presentLabels(view.labels, options.withLabelsDetails),
    milestone: view.milestone
      ? presentMilestone(view.milestone, { externalUrl: base, projectFullPath: project.full_path, today: isoDate(options.now) })
      : null,
    assignees,
    author: presentUserBasic(view.author, options),
    type: issue.issue_type.toUpperCase(),
    assignee: assignees[0] ?? null,
    user_notes_count: view.userNotesCount,
    merge_requests_count: 0,
    upvotes: 0,
    downvotes: 0,
    due_date: issue.due_date,
    confidential: issue.confidential === 1,
    discussion_locked: issue.discussion_locked === 1 ? true : null,
    issue_type: issue.issue_type,
    web_url: `${base}/${project.full_path}/-/${webPath}/${issue.iid}`,
    time_stats: NO_TIME_STATS,
    task_completion_status: taskCompletionOf(issue.description),
  }
}

/** GL Entities::Issue: IssueBasic, then the task status, links, references and the rest, in GitLab's order. */
export function presentIssue(view: IssueView, options: IssuePresentOptions): IssueJson {
  const { issue, project } = view
  const basic = presentIssueBasic(view, options)
  const tasks = basic.task_completion_status
  const projectApi = `${options.externalUrl}/api/v4/projects/${project.id}`
  return {
    ...basic,
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0
      ? { task_status: `${tasks.completed_count} of ${tasks.count} ${tasks.count === 1 ? 'task' : 'tasks'} completed` }
      : {}),
    _links: {
      self: `${projectApi}/issues/${issue.iid}`,
      notes: `${projectApi}/issues/${issue.iid}/notes`,
      award_emoji: `${projectApi}/issues/${issue.iid}/award_emoji`,
      project: projectApi,
      closed_as_duplicate_of: null,
    },
    references: referencesOf('#', issue.iid, project, options.origin),
    severity: 'UNKNOWN',
    ...(view.subscribed !== undefined ? { subscribed: view.subscribed } : {}),
    moved_to_id: null,
    imported: false,
    imported_from: 'none',
    service_desk_reply_to: null,
  }
}
