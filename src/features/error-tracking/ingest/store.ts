import { sql } from 'kysely'
import type { Db } from '../../../db/index.js'

export interface CollectorProject {
  id: number
  pendingDelete: boolean
}

/** The project with this id, or at this full path in any letter case (GL find_project; no redirects). */
export async function findCollectorProject(db: Db, idOrPath: string): Promise<CollectorProject | null> {
  const query = db.selectFrom('projects').select(['id', 'pending_delete'])
  let row: { id: number; pending_delete: number } | undefined
  if (/^\d+$/.test(idOrPath)) {
    const id = Number(idOrPath)
    if (!Number.isSafeInteger(id)) return null
    row = await query.where('id', '=', id).executeTakeFirst()
  } else {
    row = await query.where(sql`lower(full_path)`, '=', idOrPath.toLowerCase()).executeTakeFirst()
  }
  return row ? { id: Number(row.id), pendingDelete: !!row.pending_delete } : null
}

/** Whether the project's error tracking is enabled and integrated (GL ProjectErrorTrackingSetting#integrated_enabled?). */
export async function integratedTrackingEnabled(db: Db, projectId: number): Promise<boolean> {
  const row = await db
    .selectFrom('error_tracking_settings')
    .select(['enabled', 'integrated'])
    .where('project_id', '=', projectId)
    .executeTakeFirst()
  return !!row && !!row.enabled && !!row.integrated
}

/** Whether the project has an active client key with this public key. */
export async function activeClientKeyExists(db: Db, projectId: number, publicKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('error_tracking_client_keys')
    .select('id')
    .where('public_key', '=', publicKey)
    .where('project_id', '=', projectId)
    .where('active', '=', 1)
    .executeTakeFirst()
  return !!row
}

/** One error group's share of a batch: its key, how many events it adds, and what the last of them says. */
export interface ErrorUpsert {
  project_id: number
  name: string
  actor: string
  platform: string
  description: string
  first_seen_at: string
  last_seen_at: string
  events: number
}

const UPSERT_CHUNK = 200
const EVENT_CHUNK = 400

/**
 * Creates or counts the error groups, one statement per chunk: a new group starts with its events; an existing one
 * adds them and takes the last event's description (GL ErrorTracking::Error.report_error). Unlike GitLab, which
 * stamps first_seen with the time of receipt and last_seen with the last event's time, both come from the events'
 * own times, widened to the earliest and latest ever seen, so first_seen is never later than last_seen whatever order
 * or times the SDKs send. Status is left as it is: an event does not reopen a resolved error. Answers each group's id
 * by key.
 */
export async function upsertErrors(trx: Db, groups: readonly ErrorUpsert[], now: string): Promise<Map<string, number>> {
  const ids = new Map<string, number>()
  for (let at = 0; at < groups.length; at += UPSERT_CHUNK) {
    const chunk = groups.slice(at, at + UPSERT_CHUNK)
    const rows = await trx
      .insertInto('error_tracking_errors')
      .values(
        chunk.map((group) => ({
          project_id: group.project_id,
          name: group.name,
          description: group.description,
          actor: group.actor,
          platform: group.platform,
          first_seen_at: group.first_seen_at,
          last_seen_at: group.last_seen_at,
          events_count: group.events,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['project_id', 'name', 'actor', 'platform']).doUpdateSet({
          events_count: sql`error_tracking_errors.events_count + excluded.events_count`,
          description: sql`excluded.description`,
          first_seen_at: sql`case when excluded.first_seen_at < error_tracking_errors.first_seen_at then excluded.first_seen_at else error_tracking_errors.first_seen_at end`,
          last_seen_at: sql`case when excluded.last_seen_at > error_tracking_errors.last_seen_at then excluded.last_seen_at else error_tracking_errors.last_seen_at end`,
          updated_at: sql`excluded.updated_at`,
        }),
      )
      .returning(['id', 'project_id', 'name', 'actor', 'platform'])
      .execute()
    for (const row of rows) ids.set(groupKey(Number(row.project_id), row.name, row.actor, row.platform), Number(row.id))
  }
  return ids
}

export function groupKey(projectId: number, name: string, actor: string, platform: string): string {
  return `${projectId}\u0000${name}\u0000${actor}\u0000${platform}`
}

export interface NewErrorEvent {
  error_id: number
  description: string
  environment: string | null
  level: string | null
  occurred_at: string
  payload: string
  created_at: string
}

export async function insertErrorEvents(trx: Db, events: readonly NewErrorEvent[]) {
  for (let at = 0; at < events.length; at += EVENT_CHUNK) {
    await trx
      .insertInto('error_tracking_error_events')
      .values(events.slice(at, at + EVENT_CHUNK))
      .execute()
  }
}
