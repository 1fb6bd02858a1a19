import type { FieldChanges } from '../../core/changes.js'
import type { IssueRow, MergeRequestRow } from '../../db/schema.js'

// What a write did to an issue or a merge request, as GitLab's hooks report it in `changes` (GL Issuable#to_hook_data:
// the columns the save changed, then the labels, assignees and reviewers, kept to the builders' safe keys). Values are
// GitLab's: booleans for flags, `state_id` numbers, ISO 8601 times as stored, and ids for labels and people.

/** GL Issue and MergeRequest `state_id`s. */
export const STATE_IDS: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 }

/** An issuable's labels and people, by id. */
export interface IssuableLinkIds {
  labelIds: readonly number[]
  assigneeIds: readonly number[]
  reviewerIds?: readonly number[]
}

/** An issuable's columns by GitLab's wire names. */
export type Wire = Record<string, unknown>

/** An issue's GL Gitlab::HookData::IssueBuilder.safe_hook_attributes that svc keeps, in that order. */
export function issueWire(issue: IssueRow): Wire {
  return {
    author_id: issue.author_id,
    closed_at: issue.closed_at,
    confidential: issue.confidential === 1,
    created_at: issue.created_at,
    description: issue.description,
    // Never locked is null, as GitLab's column stays until someone locks or unlocks.
    discussion_locked: issue.discussion_locked === 1 ? true : null,
    due_date: issue.due_date,
    id: issue.id,
    iid: issue.iid,
    milestone_id: issue.milestone_id,
    project_id: issue.project_id,
    relative_position: issue.relative_position,
    state_id: STATE_IDS[issue.state] ?? 1,
    title: issue.title,
    updated_at: issue.updated_at,
    updated_by_id: issue.updated_by_id,
  }
}

/** A merge request's GL Gitlab::HookData::MergeRequestBuilder.safe_hook_attributes that svc keeps, in that order. */
export function mergeRequestWire(row: MergeRequestRow): Wire {
  return {
    author_id: row.author_id,
    created_at: row.created_at,
    description: row.description,
    draft: row.draft === 1,
    id: row.id,
    iid: row.iid,
    merge_commit_sha: row.merge_commit_sha,
    merge_user_id: row.merged_by_id,
    milestone_id: row.milestone_id,
    source_branch: row.source_branch,
    source_project_id: row.source_project_id ?? row.project_id,
    state_id: STATE_IDS[row.state] ?? 1,
    target_branch: row.target_branch,
    target_project_id: row.project_id,
    title: row.title,
    updated_at: row.updated_at,
    updated_by_id: row.updated_by_id,
  }
}

/** What a new record's save reports (ActiveRecord's `previous_changes` after create): each column set to a value. */
const DEFAULTS: Wire = { state_id: 1, confidential: false, draft: false }

function columnChanges(before: Wire | null, after: Wire): FieldChanges {
  const changes: FieldChanges = {}
  for (const [key, current] of Object.entries(after)) {
    const previous = before ? before[key] : null
    if (before === null && (current === null || current === DEFAULTS[key])) continue
    if (previous !== current) changes[key] = { previous, current }
  }
  return changes
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  const sorted = (ids: readonly number[]) => [...ids].sort((x, y) => x - y).join(',')
  return sorted(a) === sorted(b)
}

/** The labels, assignees and reviewers that changed (GL Issuable#hook_association_changes, #hook_reviewer_changes). */
function linkChanges(before: IssuableLinkIds, after: IssuableLinkIds): FieldChanges {
  const changes: FieldChanges = {}
  if (!sameIds(before.assigneeIds, after.assigneeIds))
    changes.assignees = { previous: [...before.assigneeIds], current: [...after.assigneeIds] }
  if (!sameIds(before.labelIds, after.labelIds)) changes.labels = { previous: [...before.labelIds], current: [...after.labelIds] }
  if (before.reviewerIds && after.reviewerIds && !sameIds(before.reviewerIds, after.reviewerIds)) {
    changes.reviewers = { previous: [...before.reviewerIds], current: [...after.reviewerIds] }
  }
  return changes
}

/** An issue's creation: every column given a value (GL Issues::CreateService hooks with `previous_changes`). */
export function issueCreationChanges(issue: IssueRow): FieldChanges {
  return columnChanges(null, issueWire(issue))
}

/** A merge request's creation: every column given a value. */
export function mergeRequestCreationChanges(row: MergeRequestRow): FieldChanges {
  return columnChanges(null, mergeRequestWire(row))
}

/** Which of an update's changes are its close or reopen (GL Issues::CloseService, ReopenService save these alone). */
const STATE_KEYS = new Set(['state_id', 'closed_at'])

/**
 * What an edit of an issue or a merge request changed, split as GitLab's update reports it: the close or reopen its
 * `state_event` made first (state, close time and `updated_at`), then the rest of the edit with its labels and people
 * (null when the edit changed nothing else). `updated_by_id` belongs to the edit: closing alone does not set it.
 */
export function issuableEditChanges(
  before: { row: Wire; links: IssuableLinkIds },
  after: { row: Wire; links: IssuableLinkIds },
): { state: FieldChanges | null; edit: FieldChanges | null } {
  const all = columnChanges(before.row, after.row)
  const state: FieldChanges = {}
  const edit: FieldChanges = {}
  for (const [key, change] of Object.entries(all)) {
    if (STATE_KEYS.has(key)) state[key] = change
    else if (key !== 'updated_at') edit[key] = change
  }
  Object.assign(edit, linkChanges(before.links, after.links))
  const edited = Object.keys(edit).some((key) => key !== 'updated_by_id')
  if (all.updated_at) {
    if (Object.keys(state).length > 0) state.updated_at = all.updated_at
    if (edited) edit.updated_at = all.updated_at
  }
  return { state: Object.keys(state).length > 0 ? state : null, edit: edited ? edit : null }
}

/** A state change alone, as GitLab's close, reopen and merge saves report it: the state, its time, `updated_at`. */
export function stateChanges(before: Wire, after: Wire): FieldChanges {
  const changes: FieldChanges = {}
  for (const [key, change] of Object.entries(columnChanges(before, after))) {
    if (STATE_KEYS.has(key) || key === 'updated_at') changes[key] = change
  }
  return changes
}
