import type { Db } from '../../../db/index.js'
import type { IssueRow, LabelRow, MergeRequestRow, NoteRow } from '../../../db/schema.js'

// What the issue, merge request and comment bodies read, in the change's transaction.

export function findHookIssue(db: Db, id: number): Promise<IssueRow | undefined> {
  return db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findHookMergeRequest(db: Db, id: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findHookNote(db: Db, id: number): Promise<NoteRow | undefined> {
  return db.selectFrom('notes').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The people columns hook bodies show, in the order of `ids`. */
export async function findHookUsers(db: Db, ids: readonly number[]) {
  if (ids.length === 0) return []
  const rows = await db
    .selectFrom('users')
    .select(['id', 'name', 'username', 'email', 'public_email'])
    .where('id', 'in', [...ids])
    .execute()
  const byId = new Map(rows.map((row) => [row.id, row]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

export type HookPerson = Awaited<ReturnType<typeof findHookUsers>>[number]

/** Labels by id, by id. */
export function findHookLabels(db: Db, ids: readonly number[]): Promise<LabelRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db
    .selectFrom('labels')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute()
}

/** An issue's or merge request's label ids, by id. */
export async function findLabelIdsOf(db: Db, type: 'Issue' | 'MergeRequest', id: number): Promise<number[]> {
  const rows =
    type === 'Issue'
      ? await db.selectFrom('issue_labels').select('label_id').where('issue_id', '=', id).orderBy('label_id').execute()
      : await db.selectFrom('merge_request_labels').select('label_id').where('merge_request_id', '=', id).orderBy('label_id').execute()
  return rows.map((row) => row.label_id)
}

/** An issue's or merge request's assignee ids, by id (the order the API lists them in). */
export async function findAssigneeIdsOf(db: Db, type: 'Issue' | 'MergeRequest', id: number): Promise<number[]> {
  const rows =
    type === 'Issue'
      ? await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', id).orderBy('user_id').execute()
      : await db.selectFrom('merge_request_assignees').select('user_id').where('merge_request_id', '=', id).orderBy('user_id').execute()
  return rows.map((row) => row.user_id)
}

/** A merge request's reviewer ids, in the order they were asked. */
export async function findReviewerIdsOf(db: Db, mergeRequestId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('merge_request_reviewers')
    .select('user_id')
    .where('merge_request_id', '=', mergeRequestId)
    .orderBy('created_at')
    .orderBy('user_id')
    .execute()
  return rows.map((row) => row.user_id)
}

/** Whether a merge request has a thread left to resolve. */
export async function hasUnresolvedThread(db: Db, mergeRequestId: number): Promise<boolean> {
  const found = await db
    .selectFrom('notes')
    .select('id')
    .where('merge_request_id', '=', mergeRequestId)
    .where('system', '=', 0)
    .where('type', 'in', ['DiffNote', 'DiscussionNote'])
    .where('resolved_at', 'is', null)
    .executeTakeFirst()
  return found !== undefined
}

/** Whether the author has a merged merge request in the project. */
export async function hasMergedMergeRequestBy(db: Db, projectId: number, authorId: number): Promise<boolean> {
  const found = await db
    .selectFrom('merge_requests')
    .select('id')
    .where('project_id', '=', projectId)
    .where('author_id', '=', authorId)
    .where('state', '=', 'merged')
    .executeTakeFirst()
  return found !== undefined
}

/** A user's whole row, to ask what they may do. */
export function findHookUserRow(db: Db, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}
