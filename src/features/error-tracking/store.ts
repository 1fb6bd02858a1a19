import { sql, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type {
  ErrorTrackingClientKeyRow,
  ErrorTrackingErrorEventRow,
  ErrorTrackingErrorRow,
  ErrorTrackingSettingsRow,
} from '../../db/schema.js'

// ----- settings -----

export function findSettings(db: Db, projectId: number): Promise<ErrorTrackingSettingsRow | undefined> {
  return db.selectFrom('error_tracking_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst()
}

/** Writes the project's settings, creating the row when there is none (concurrent creations meet on project_id). */
export async function upsertSettings(db: Db, projectId: number, values: { enabled: number; integrated?: number }, at: string) {
  await db
    .insertInto('error_tracking_settings')
    .values({ project_id: projectId, enabled: values.enabled, integrated: values.integrated ?? 0, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('project_id').doNothing())
    .execute()
  await db
    .updateTable('error_tracking_settings')
    .set({ ...values, updated_at: at })
    .where('project_id', '=', projectId)
    .execute()
}

// ----- client keys -----

export function selectClientKeys(db: Db, projectId: number) {
  return db.selectFrom('error_tracking_client_keys').selectAll().where('project_id', '=', projectId).orderBy('id', 'asc')
}

export function findClientKey(db: Db, projectId: number, keyId: number): Promise<ErrorTrackingClientKeyRow | undefined> {
  return db
    .selectFrom('error_tracking_client_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', keyId)
    .executeTakeFirst()
}

export async function hasActiveClientKey(db: Db, projectId: number): Promise<boolean> {
  const row = await db
    .selectFrom('error_tracking_client_keys')
    .select('id')
    .where('project_id', '=', projectId)
    .where('active', '=', 1)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

export function insertClientKey(db: Db, projectId: number, publicKey: string, at: string): Promise<ErrorTrackingClientKeyRow> {
  return db
    .insertInto('error_tracking_client_keys')
    .values({ project_id: projectId, active: 1, public_key: publicKey, created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function updateClientKeyActive(db: Db, keyId: number, active: boolean, at: string): Promise<ErrorTrackingClientKeyRow | undefined> {
  return db
    .updateTable('error_tracking_client_keys')
    .set({ active: active ? 1 : 0, updated_at: at })
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteClientKeyRow(db: Db, keyId: number): Promise<boolean> {
  const result = await db.deleteFrom('error_tracking_client_keys').where('id', '=', keyId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

// ----- errors and events -----

/** A LIKE pattern matching `term` anywhere, with its own wildcards escaped. */
function containing(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

const SEARCHED = ['name', 'description', 'actor'] as const

export interface ErrorFilter {
  status: number
  search?: string
  order: 'last_seen_at' | 'first_seen_at' | 'events_count' | 'id'
}

export function selectErrors(db: Db, projectId: number, filter: ErrorFilter) {
  let query = db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', projectId).where('status', '=', filter.status)
  const search = filter.search
  if (search) {
    query = query.where((eb) =>
      eb.or(SEARCHED.map((column) => sql<SqlBool>`lower(${sql.ref(column)}) like ${containing(search)} escape '\\'`)),
    )
  }
  if (filter.order !== 'id') query = query.orderBy(filter.order, 'desc')
  return query.orderBy('id', 'desc')
}

export function findError(db: Db, projectId: number, errorId: number): Promise<ErrorTrackingErrorRow | undefined> {
  return db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', projectId).where('id', '=', errorId).executeTakeFirst()
}

export async function updateErrorStatus(db: Db, errorId: number, status: number, at: string) {
  await db.updateTable('error_tracking_errors').set({ status, updated_at: at }).where('id', '=', errorId).execute()
}

/** An error's events, newest first. */
export function selectErrorEvents(db: Db, errorId: number) {
  return db
    .selectFrom('error_tracking_error_events')
    .selectAll()
    .where('error_id', '=', errorId)
    .orderBy('occurred_at', 'desc')
    .orderBy('id', 'desc')
}

export function findLatestErrorEvent(db: Db, errorId: number): Promise<ErrorTrackingErrorEventRow | undefined> {
  return selectErrorEvents(db, errorId).limit(1).executeTakeFirst()
}
