import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { AlertRow } from '../../db/schema.js'

export function findAlertById(db: Db, id: number): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * The alert, written to without change so that its row stays locked until the transaction ends: a second
 * job for the same alert waits here and then sees what the first one did.
 */
export function lockAlert(db: Db, id: number): Promise<AlertRow | undefined> {
  return db
    .updateTable('alerts')
    .set({ updated_at: sql<string>`updated_at` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function linkAlertToIssue(db: Db, id: number, issueId: number, at: string): Promise<void> {
  await db.updateTable('alerts').set({ issue_id: issueId, updated_at: at }).where('id', '=', id).execute()
}
