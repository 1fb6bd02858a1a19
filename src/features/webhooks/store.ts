import { sql, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type {
  NewWebHookLogRow,
  NewWebHookRow,
  WebHookDeliveryRow,
  WebHookLogRow,
  WebHookRow,
  WebHookType,
  WebHookUpdate,
} from '../../db/schema.js'

/** Whose hooks: a project's, a group's, or the instance's (system hooks). */
export type HookOwner = { type: 'ProjectHook'; projectId: number } | { type: 'GroupHook'; groupId: number } | { type: 'SystemHook' }

function hooksOf(db: Db, owner: HookOwner) {
  const query = db.selectFrom('web_hooks').selectAll().where('type', '=', owner.type)
  if (owner.type === 'ProjectHook') return query.where('project_id', '=', owner.projectId)
  if (owner.type === 'GroupHook') return query.where('group_id', '=', owner.groupId)
  return query
}

/** The owner's hooks, oldest first. */
export function selectHooksOf(db: Db, owner: HookOwner) {
  return hooksOf(db, owner).orderBy('id', 'asc')
}

export function findHookOf(db: Db, owner: HookOwner, id: number): Promise<WebHookRow | undefined> {
  return hooksOf(db, owner).where('id', '=', id).executeTakeFirst()
}

export function findHookRowById(db: Db, id: number): Promise<WebHookRow | undefined> {
  return db.selectFrom('web_hooks').selectAll().where('id', '=', id).executeTakeFirst()
}

export function insertHook(db: Db, row: NewWebHookRow): Promise<WebHookRow> {
  return db.insertInto('web_hooks').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateHookRow(db: Db, id: number, changes: WebHookUpdate): Promise<WebHookRow> {
  return db.updateTable('web_hooks').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteHookRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('web_hooks').where('id', '=', id).execute()
}

/**
 * Sets a hook's failure state if nobody changed it since it was read (`seen`); false when someone did, and the caller
 * reads it again. Concurrent deliveries of one hook never lose a failure that way, on either engine.
 */
export async function updateHookFailureState(
  db: Db,
  id: number,
  seen: Pick<WebHookRow, 'recent_failures' | 'disabled_until'>,
  next: Pick<WebHookRow, 'recent_failures' | 'disabled_until'>,
): Promise<boolean> {
  let query = db
    .updateTable('web_hooks')
    .set({ recent_failures: next.recent_failures, disabled_until: next.disabled_until })
    .where('id', '=', id)
    .where('recent_failures', '=', seen.recent_failures)
  query = seen.disabled_until === null ? query.where('disabled_until', 'is', null) : query.where('disabled_until', '=', seen.disabled_until)
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** The namespace a project lives in, as the ids from the root down (`traversal_ids`); undefined when it is gone. */
export async function findProjectTraversal(db: Db, projectId: number): Promise<{ kind: string; traversalIds: string } | undefined> {
  const row = await db
    .selectFrom('projects')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['namespaces.kind', 'namespaces.traversal_ids'])
    .where('projects.id', '=', projectId)
    .executeTakeFirst()
  return row && { kind: row.kind, traversalIds: row.traversal_ids }
}

export async function findGroupTraversal(db: Db, groupId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('namespaces')
    .select('traversal_ids')
    .where('id', '=', groupId)
    .where('kind', '=', 'group')
    .executeTakeFirst()
  return row?.traversal_ids
}

/** The hooks of a project, of some groups, and (when asked) the system hooks, in one indexed query. */
export function findHooksAt(db: Db, place: { projectId: number | null; groupIds: number[]; system: boolean }): Promise<WebHookRow[]> {
  return db
    .selectFrom('web_hooks')
    .selectAll()
    .where((eb) => {
      const branches = []
      if (place.projectId !== null) branches.push(eb('project_id', '=', place.projectId))
      if (place.groupIds.length > 0) branches.push(eb('group_id', 'in', place.groupIds))
      if (place.system) branches.push(eb('type', '=', 'SystemHook' satisfies WebHookType))
      return branches.length > 0 ? eb.or(branches) : sql<SqlBool>`1 = 0`
    })
    .orderBy('id', 'asc')
    .execute()
}

export async function insertDeliveries(db: Db, rows: Omit<WebHookDeliveryRow, 'id' | 'attempts'>[]): Promise<number[]> {
  if (rows.length === 0) return []
  const inserted = await db.insertInto('web_hook_deliveries').values(rows).returning('id').execute()
  return inserted.map((row) => Number(row.id))
}

export function findDeliveryById(db: Db, id: number): Promise<WebHookDeliveryRow | undefined> {
  return db.selectFrom('web_hook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function setDeliveryAttempts(db: Db, id: number, attempts: number): Promise<void> {
  await db.updateTable('web_hook_deliveries').set({ attempts }).where('id', '=', id).execute()
}

export async function deleteDelivery(db: Db, id: number): Promise<void> {
  await db.deleteFrom('web_hook_deliveries').where('id', '=', id).execute()
}

export async function insertHookLog(db: Db, row: NewWebHookLogRow): Promise<number> {
  const inserted = await db.insertInto('web_hook_logs').values(row).returning('id').executeTakeFirstOrThrow()
  return Number(inserted.id)
}

/** What a status filter of the events list matches: exact codes, code ranges, and GitLab's `internal error`. */
export interface StatusFilter {
  codes: string[]
  ranges: [number, number][]
  internalError: boolean
}

/** A hook's log since `since`, newest first, narrowed by `status` when given (GL WebHookLogsFinder). */
export function selectHookLogs(db: Db, hookId: number, since: Date, status: StatusFilter | null) {
  let query = db.selectFrom('web_hook_logs').selectAll().where('web_hook_id', '=', hookId).where('created_at', '>=', since.toISOString())
  if (status) {
    query = query.where((eb) => {
      const branches = []
      if (status.codes.length > 0) branches.push(eb('response_status', 'in', status.codes))
      for (const [low, high] of status.ranges) {
        branches.push(eb.and([eb('response_status', '>=', String(low)), eb('response_status', '<=', String(high))]))
      }
      if (status.internalError) branches.push(eb('response_status', '=', 'internal error'))
      return eb.or(branches)
    })
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc')
}

export function findHookLog(db: Db, hookId: number, logId: number): Promise<WebHookLogRow | undefined> {
  return db.selectFrom('web_hook_logs').selectAll().where('web_hook_id', '=', hookId).where('id', '=', logId).executeTakeFirst()
}

/** Deletes up to `limit` log entries written before `before`; answers how many went. */
export async function deleteHookLogsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('web_hook_logs')
    .where('id', 'in', (eb) =>
      eb.selectFrom('web_hook_logs').select('id').where('created_at', '<', before.toISOString()).orderBy('id').limit(limit),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** What a hook test sends: the newest of a project's issues, merge requests or notes (GL TestHooks::ProjectService). */
export async function findNewestIdIn(db: Db, table: 'issues' | 'merge_requests' | 'notes', projectId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst()
  return row?.id
}

/** GL Group#first_non_empty_project: the group's own first project with commits. */
export async function findFirstNonEmptyProjectId(db: Db, groupId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('namespace_id', '=', groupId)
    .where('empty_repo', '=', 0)
    .where('pending_delete', '=', 0)
    .orderBy('id', 'asc')
    .executeTakeFirst()
  return row?.id
}
