import type { Db } from '../../db/index.js'
import type { NewEventRow } from '../../db/schema.js'

export async function insertEvent(db: Db, row: NewEventRow): Promise<void> {
  await db.insertInto('events').values(row).execute()
}
