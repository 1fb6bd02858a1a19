// Owns what issues and merge requests share: their assignee links (`issue_assignees`, `merge_request_assignees`),
// the `milestone_id` of both tables when a milestone is deleted, and their `updated_at` when a note is saved
// (milestones and notes sit below issues and merge requests, so they cannot ask them).
import type { Db } from '../../db/index.js'
import type { LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'

/** Which of the two issuable tables a query is about. */
export type IssuableType = 'Issue' | 'MergeRequest'

export async function findLabelsOf(db: Db, type: IssuableType, ids: readonly number[]): Promise<Map<number, LabelRow[]>> {
  const byId = new Map<number, LabelRow[]>()
  if (ids.length === 0) return byId
  const rows =
    type === 'Issue'
      ? await db
          .selectFrom('issue_labels')
          .innerJoin('labels', 'labels.id', 'issue_labels.label_id')
          .selectAll('labels')
          .select('issue_labels.issue_id as owner_id')
          .where('issue_labels.issue_id', 'in', [...ids])
          .execute()
      : await db
          .selectFrom('merge_request_labels')
          .innerJoin('labels', 'labels.id', 'merge_request_labels.label_id')
          .selectAll('labels')
          .select('merge_request_labels.merge_request_id as owner_id')
          .where('merge_request_labels.merge_request_id', 'in', [...ids])
          .execute()
  for (const { owner_id, ...label } of rows) {
    const list = byId.get(Number(owner_id)) ?? []
    list.push(label)
    byId.set(Number(owner_id), list)
  }
  return byId
}

/** Assignees of each issuable, in the order they were assigned (their join rows carry no order; ids grow with it). */
export async function findAssigneesOf(db: Db, type: IssuableType, ids: readonly number[]): Promise<Map<number, UserRow[]>> {
  const byId = new Map<number, UserRow[]>()
  if (ids.length === 0) return byId
  const rows =
    type === 'Issue'
      ? await db
          .selectFrom('issue_assignees')
          .innerJoin('users', 'users.id', 'issue_assignees.user_id')
          .selectAll('users')
          .select('issue_assignees.issue_id as owner_id')
          .where('issue_assignees.issue_id', 'in', [...ids])
          .orderBy('users.id')
          .execute()
      : await db
          .selectFrom('merge_request_assignees')
          .innerJoin('users', 'users.id', 'merge_request_assignees.user_id')
          .selectAll('users')
          .select('merge_request_assignees.merge_request_id as owner_id')
          .where('merge_request_assignees.merge_request_id', 'in', [...ids])
          .orderBy('users.id')
          .execute()
  for (const { owner_id, ...user } of rows) {
    const list = byId.get(Number(owner_id)) ?? []
    list.push(user as UserRow)
    byId.set(Number(owner_id), list)
  }
  return byId
}

export async function findUserNotesCounts(db: Db, type: IssuableType, ids: readonly number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>()
  if (ids.length === 0) return counts
  const column = type === 'Issue' ? 'issue_id' : 'merge_request_id'
  const rows = await db
    .selectFrom('notes')
    .select([column, (eb) => eb.fn.countAll<number>().as('count')])
    .where(column, 'in', [...ids])
    .where('system', '=', 0)
    .groupBy(column)
    .execute()
  for (const row of rows) counts.set(Number(row[column]), Number(row.count))
  return counts
}

export function findMilestonesByIds(db: Db, ids: readonly number[]): Promise<MilestoneRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db
    .selectFrom('milestones')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute()
}

export function findProjectMilestone(db: Db, projectId: number, milestoneId: number): Promise<MilestoneRow | undefined> {
  return db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).where('id', '=', milestoneId).executeTakeFirst()
}

export async function replaceAssignees(db: Db, type: IssuableType, id: number, userIds: readonly number[]) {
  if (type === 'Issue') {
    await db.deleteFrom('issue_assignees').where('issue_id', '=', id).execute()
    if (userIds.length > 0)
      await db
        .insertInto('issue_assignees')
        .values(userIds.map((userId) => ({ issue_id: id, user_id: userId })))
        .execute()
  } else {
    await db.deleteFrom('merge_request_assignees').where('merge_request_id', '=', id).execute()
    if (userIds.length > 0)
      await db
        .insertInto('merge_request_assignees')
        .values(userIds.map((userId) => ({ merge_request_id: id, user_id: userId })))
        .execute()
  }
}

/** Whether the user wrote a note on the issuable (a participant, so subscribed by default). */
export async function hasNoteBy(db: Db, type: IssuableType, id: number, userId: number): Promise<boolean> {
  const column = type === 'Issue' ? 'issue_id' : 'merge_request_id'
  const row = await db.selectFrom('notes').select('id').where(column, '=', id).where('author_id', '=', userId).limit(1).executeTakeFirst()
  return row !== undefined
}

/** Takes a milestone off every issue and merge request that has it. */
export async function clearMilestone(db: Db, milestoneId: number, at: string): Promise<void> {
  await db.updateTable('issues').set({ milestone_id: null, updated_at: at }).where('milestone_id', '=', milestoneId).execute()
  await db.updateTable('merge_requests').set({ milestone_id: null, updated_at: at }).where('milestone_id', '=', milestoneId).execute()
}

export async function touchIssuableRow(db: Db, type: IssuableType, id: number, at: string): Promise<void> {
  if (type === 'Issue') await db.updateTable('issues').set({ updated_at: at }).where('id', '=', id).execute()
  else await db.updateTable('merge_requests').set({ updated_at: at }).where('id', '=', id).execute()
}
