import type { Db } from '../../db/index.js'

export function listSettingRows(db: Db) {
  return db.selectFrom('application_settings').select(['name', 'value']).execute()
}

export async function upsertSettingRows(db: Db, values: Record<string, unknown>, now: string) {
  for (const [name, value] of Object.entries(values)) {
    await db
      .insertInto('application_settings')
      .values({ name, value: JSON.stringify(value), updated_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: JSON.stringify(value), updated_at: now }))
      .execute()
  }
}
