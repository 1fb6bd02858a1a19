import { type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { Database, NoteRow, PushEventPayloadRow } from '../../db/schema.js'

export function findPushEventPayloads(db: Db, eventIds: number[]): Promise<PushEventPayloadRow[]> {
  if (eventIds.length === 0) return Promise.resolve([])
  return db.selectFrom('push_event_payloads').selectAll().where('event_id', 'in', eventIds).execute()
}

/** A condition on `projects` (visibility, membership) that lists of events apply through their project. */
export type ProjectCondition = (eb: ExpressionBuilder<Database, 'projects'>) => Expression<SqlBool>

export interface EventFilters {
  projectId?: number
  authorId?: number
  /** Only events of projects meeting this condition (and so never events without a project). */
  projects?: ProjectCondition
  action?: number
  targetType?: string
  /** Created strictly before this instant. */
  createdBefore?: string
  /** Created strictly after this instant. */
  createdAfter?: string
}

/** The events matching the filters, unordered; lists order and page them. */
export function selectEvents(db: Db, filters: EventFilters) {
  let query = db.selectFrom('events').select(['id', 'project_id', 'author_id', 'action', 'target_type', 'target_id', 'created_at'])
  if (filters.projectId !== undefined) query = query.where('project_id', '=', filters.projectId)
  if (filters.authorId !== undefined) query = query.where('author_id', '=', filters.authorId)
  const condition = filters.projects
  if (condition)
    query = query.where(
      'project_id',
      'in',
      db
        .selectFrom('projects')
        .select('projects.id')
        .where((eb) => condition(eb)),
    )
  if (filters.action !== undefined) query = query.where('action', '=', filters.action)
  if (filters.targetType !== undefined) query = query.where('target_type', '=', filters.targetType)
  if (filters.createdBefore !== undefined) query = query.where('created_at', '<', filters.createdBefore)
  if (filters.createdAfter !== undefined) query = query.where('created_at', '>', filters.createdAfter)
  return query
}

/** A user's current group memberships (with the group's traversal ids) and their direct roles on the given projects. */
export async function findMembershipsOfUser(db: Db, userId: number, projectIds: number[], today: string) {
  const current = (eb: ExpressionBuilder<Database, 'members'>) =>
    eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)])
  const [groups, projects] = await Promise.all([
    db
      .selectFrom('members')
      .innerJoin('namespaces', 'namespaces.id', 'members.namespace_id')
      .select(['members.access_level', 'namespaces.traversal_ids'])
      .where('members.user_id', '=', userId)
      .where(current)
      .execute(),
    projectIds.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('members')
          .select(['members.project_id', 'members.access_level'])
          .where('members.user_id', '=', userId)
          .where('members.project_id', 'in', projectIds)
          .where(current)
          .execute(),
  ])
  return { groups, projects: projects.map((row) => ({ projectId: Number(row.project_id), accessLevel: row.access_level })) }
}

export function findNotesByIds(db: Db, ids: number[]): Promise<NoteRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('notes').selectAll().where('id', 'in', ids).execute()
}

export function findIssuesByIds(db: Db, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('issues').selectAll().where('id', 'in', ids).execute()
}

export async function findAssigneeIdsOfIssues(db: Db, issueIds: number[]): Promise<Map<number, number[]>> {
  const byIssue = new Map<number, number[]>()
  if (issueIds.length === 0) return byIssue
  const rows = await db.selectFrom('issue_assignees').select(['issue_id', 'user_id']).where('issue_id', 'in', issueIds).execute()
  for (const row of rows) byIssue.set(row.issue_id, [...(byIssue.get(row.issue_id) ?? []), row.user_id])
  return byIssue
}

export function findMergeRequestsByIds(db: Db, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('merge_requests').select(['id', 'project_id', 'iid', 'title']).where('id', 'in', ids).execute()
}

export function findMilestonesByIds(db: Db, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('milestones').select(['id', 'project_id', 'iid', 'title']).where('id', 'in', ids).execute()
}
