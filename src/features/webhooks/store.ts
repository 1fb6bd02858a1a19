import { sql, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type {
  Database,
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

export async function insertDeliveries(db: Db, rows: Omit<WebHookDeliveryRow, 'id' | 'attempts' | 'locked_until'>[]): Promise<number> {
  if (rows.length === 0) return 0
  await db.insertInto('web_hook_deliveries').values(rows).execute()
  return rows.length
}

/**
 * Takes up to `limit` deliveries due at `now` that no worker holds, holding them until `lockedUntil`, oldest first.
 * The hold is checked again on the row itself, so that two workers (nodes) never take the same delivery.
 */
export async function claimDueDeliveries(db: Db, now: Date, lockedUntil: Date, limit: number): Promise<WebHookDeliveryRow[]> {
  const at = now.toISOString()
  const free = (eb: ExpressionBuilder<Database, 'web_hook_deliveries'>) =>
    eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)])
  const rows = await db
    .updateTable('web_hook_deliveries')
    .set({ locked_until: lockedUntil.toISOString() })
    .where('id', 'in', (eb) =>
      eb.selectFrom('web_hook_deliveries').select('id').where('run_at', '<=', at).where(free).orderBy('run_at').orderBy('id').limit(limit),
    )
    .where(free)
    .returningAll()
    .execute()
  return rows.sort((a, b) => a.id - b.id)
}

/** When the next delivery becomes due or free again, after `now`; null when none waits. */
export async function findNextDeliveryAt(db: Db, now: Date): Promise<Date | null> {
  const at = now.toISOString()
  const row = await db
    .selectFrom('web_hook_deliveries')
    .select((eb) => [eb.fn.min('run_at').as('run_at'), eb.fn.min('locked_until').as('locked_until')])
    .where((eb) => eb.or([eb('run_at', '>', at), eb('locked_until', '>', at)]))
    .executeTakeFirst()
  const times = [row?.run_at, row?.locked_until].filter((value): value is string => typeof value === 'string' && value > at)
  return times.length === 0 ? null : new Date(times.sort()[0]!)
}

/** What a batch made of its deliveries: some sent or given up (removed), others waiting for a later attempt. */
export async function settleDeliveries(
  db: Db,
  settled: { removed: number[]; later: { id: number; attempts: number; runAt: string }[] },
): Promise<void> {
  if (settled.removed.length > 0) await db.deleteFrom('web_hook_deliveries').where('id', 'in', settled.removed).execute()
  for (const { id, attempts, runAt } of settled.later) {
    await db.updateTable('web_hook_deliveries').set({ attempts, run_at: runAt, locked_until: null }).where('id', '=', id).execute()
  }
}

/**
 * The current sending round, with the round's row held until `db`'s transaction ends: a sending job that starts the
 * next round waits for it, so whatever this transaction records is seen by that job.
 */
export async function joinSendingRound(db: Db): Promise<number> {
  const row = await db
    .updateTable('web_hook_sending')
    .set({ round: sql`round` })
    .where('id', '=', 1)
    .returning('round')
    .executeTakeFirstOrThrow()
  return Number(row.round)
}

/** Starts the next sending round; answers it. */
export async function startSendingRound(db: Db): Promise<number> {
  const row = await db
    .updateTable('web_hook_sending')
    .set((eb) => ({ round: eb('round', '+', 1) }))
    .where('id', '=', 1)
    .returning('round')
    .executeTakeFirstOrThrow()
  return Number(row.round)
}

export function findHooksByIds(db: Db, ids: number[]): Promise<WebHookRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db.selectFrom('web_hooks').selectAll().where('id', 'in', ids).execute()
}

export async function insertHookLogs(db: Db, rows: NewWebHookLogRow[]): Promise<number[]> {
  const inserted = await db.insertInto('web_hook_logs').values(rows).returning('id').execute()
  return inserted.map((row) => Number(row.id))
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
