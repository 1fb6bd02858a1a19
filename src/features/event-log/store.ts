import { sql, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { NewEventRow, PushEventPayloadRow } from '../../db/schema.js'

export async function insertEvent(db: Db, row: NewEventRow): Promise<number> {
  const { id } = await db.insertInto('events').values(row).returning('id').executeTakeFirstOrThrow()
  return Number(id)
}

export async function insertPushEventPayload(db: Db, row: PushEventPayloadRow): Promise<void> {
  await db.insertInto('push_event_payloads').values(row).execute()
}

export async function insertEvents(db: Db, rows: NewEventRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('events').values(rows).execute()
}

/** Deletes up to `limit` events created before `cutoff`; answers how many went. */
export async function deleteEventsCreatedBefore(db: Db, cutoff: string, limit: number): Promise<number> {
  const batch = db.selectFrom('events').select('id').where('created_at', '<', cutoff).limit(limit)
  const result = await db.deleteFrom('events').where('id', 'in', batch).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The user's memberships of projects anywhere below a group, with their expiry. */
export function findProjectMembershipsBelow(db: Db, traversalIds: string, userId: number) {
  return db
    .selectFrom('members')
    .innerJoin('projects', 'projects.id', 'members.project_id')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['members.project_id', 'members.expires_at'])
    .where('members.user_id', '=', userId)
    .where(sql<SqlBool>`namespaces.traversal_ids like ${traversalIds + '%'}`)
    .execute()
}

export async function clearEventTargets(db: Db, targetType: string, targetId: number): Promise<void> {
  await db.updateTable('events').set({ target_id: null }).where('target_type', '=', targetType).where('target_id', '=', targetId).execute()
}
