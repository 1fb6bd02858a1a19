import type { Db } from '../../db/index.js'
import type { NotificationSettingsTable } from '../../db/schema.js'
import type { Selectable } from 'kysely'

export type NotificationSettingRow = Selectable<NotificationSettingsTable>
export type NotificationSource = { type: 'Namespace' | 'Project'; id: number } | null

export function findNotificationSetting(db: Db, userId: number, source: NotificationSource) {
  let query = db.selectFrom('notification_settings').selectAll().where('user_id', '=', userId)
  query = source
    ? query.where('source_type', '=', source.type).where('source_id', '=', source.id)
    : query.where('source_type', 'is', null).where('source_id', 'is', null)
  return query.executeTakeFirst()
}

/** The user's rows for some sources of one type. */
export function findNotificationSettingsOf(db: Db, userId: number, type: 'Namespace' | 'Project', sourceIds: readonly number[]) {
  if (sourceIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('notification_settings')
    .selectAll()
    .where('user_id', '=', userId)
    .where('source_type', '=', type)
    .where('source_id', 'in', sourceIds)
    .execute()
}

/** Inserts the row unless one exists for the user and source (the unique index decides, so racing requests make one). */
export async function insertNotificationSettingIfMissing(db: Db, userId: number, source: NotificationSource, level: number, now: string) {
  await db
    .insertInto('notification_settings')
    .values({
      user_id: userId,
      source_type: source?.type ?? null,
      source_id: source?.id ?? null,
      level,
      events: '{}',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute()
}

export function updateNotificationSettingRow(db: Db, id: number, values: { level: number; events: string; updated_at: string }) {
  return db.updateTable('notification_settings').set(values).where('id', '=', id).execute()
}

export function findUserEmails(db: Db, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'username', 'email', 'notification_email', 'confirmed_at'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
}
