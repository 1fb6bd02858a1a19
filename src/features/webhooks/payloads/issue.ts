import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import type { IssueRow } from '../../../db/schema.js'
import { absoluteImageUrls, findHookProject, projectHookAttrs, repositoryHookAttrs, userHookAttrs, type HookProject } from './common.js'
import { rubyUtc } from './formats.js'
import type { HookPayload } from './index.js'
import { hookChanges, labelsHookAttrs, NO_TIME_TRACKING, peopleHookAttrs } from './issuable.js'
import { findAssigneeIdsOf, findHookIssue, findHookUsers, findLabelIdsOf } from './issuable-store.js'

// An issue opened, edited, closed or reopened (GL Issues::BaseService#execute_hooks with Issuable#to_hook_data).

/** GL Gitlab::HookData::IssueBuilder.safe_hook_attributes, then safe_hook_relations: what `changes` may hold, in order. */
export const ISSUE_SAFE_KEYS = [
  'assignee_id',
  'author_id',
  'closed_at',
  'confidential',
  'created_at',
  'description',
  'discussion_locked',
  'due_date',
  'id',
  'iid',
  'last_edited_at',
  'last_edited_by_id',
  'milestone_id',
  'moved_to_id',
  'duplicated_to_id',
  'project_id',
  'relative_position',
  'state_id',
  'time_estimate',
  'title',
  'updated_at',
  'updated_by_id',
  'assignees',
  'labels',
  'total_time_spent',
  'time_change',
  'severity',
  'escalation_status',
  'customer_relations_contacts',
]

const STATE_IDS: Record<string, number> = { opened: 1, closed: 2 }

/** The issue's web address (GL Gitlab::UrlBuilder): incidents live under issues/incident. */
export function issueUrl(issue: IssueRow, projectFullPath: string, externalUrl: string): string {
  return `${externalUrl}/${projectFullPath}/-/${issue.issue_type === 'incident' ? 'issues/incident' : 'issues'}/${issue.iid}`
}

/**
 * GL Gitlab::HookData::IssueBuilder#build: the issue's safe columns as its attributes hold them, then what the builder
 * adds. Also what a comment's body shows of its issue.
 */
export async function issueHookAttrs(ctx: Context, trx: Db, issue: IssueRow, source: HookProject) {
  const { externalUrl } = ctx.config
  const assigneeIds = await findAssigneeIdsOf(trx, 'Issue', issue.id)
  return {
    author_id: issue.author_id,
    closed_at: issue.closed_at === null ? null : rubyUtc(issue.closed_at),
    confidential: issue.confidential === 1,
    created_at: rubyUtc(issue.created_at),
    description: absoluteImageUrls(issue.description, source.project.full_path, externalUrl),
    discussion_locked: issue.discussion_locked === 1 ? true : null,
    due_date: issue.due_date,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: issue.milestone_id,
    moved_to_id: null,
    duplicated_to_id: null,
    project_id: issue.project_id,
    relative_position: issue.relative_position,
    state_id: STATE_IDS[issue.state] ?? 1,
    time_estimate: 0,
    title: issue.title,
    updated_at: rubyUtc(issue.updated_at),
    updated_by_id: issue.updated_by_id,
    type: issue.issue_type === 'incident' ? 'Incident' : 'Issue',
    url: issueUrl(issue, source.project.full_path, externalUrl),
    ...NO_TIME_TRACKING,
    assignee_ids: assigneeIds,
    assignee_id: assigneeIds[0] ?? null,
    labels: await labelsHookAttrs(trx, await findLabelIdsOf(trx, 'Issue', issue.id)),
    state: issue.state,
    severity: 'unknown',
    customer_relations_contacts: [],
  }
}

/**
 * What an issue's change sends: `Issue Hook`, heard by `confidential_issues_events` for a confidential issue (its
 * `event_type` then `confidential_issue`) and by `issues_events` otherwise. System hooks hear no issues.
 */
export async function issuePayloads(ctx: Context, trx: Db, change: Extract<Change, { kind: 'issue' }>): Promise<HookPayload[]> {
  const issue = await findHookIssue(trx, change.issueId)
  const source = issue && (await findHookProject(trx, issue.project_id))
  const [actor] = await findHookUsers(trx, [change.actorId])
  if (!issue || !source || !actor) return []
  const project = projectHookAttrs(source, ctx.config.externalUrl)
  const confidential = issue.confidential === 1
  const objectAttributes = { ...(await issueHookAttrs(ctx, trx, issue, source)), action: change.action }
  const body: Record<string, unknown> = {
    object_kind: 'issue',
    event_type: confidential ? 'confidential_issue' : 'issue',
    user: userHookAttrs(actor),
    project,
    object_attributes: objectAttributes,
    labels: objectAttributes.labels,
    changes: await hookChanges(trx, change.changes, ISSUE_SAFE_KEYS),
    repository: repositoryHookAttrs(project),
  }
  if (objectAttributes.assignee_ids.length > 0) body.assignees = await peopleHookAttrs(trx, objectAttributes.assignee_ids)
  return [{ event: 'Issue Hook', trigger: confidential ? 'confidential_issues_events' : 'issues_events', scope: 'project', body }]
}
