import type { Db } from '../../db/index.js'
import type { MailOutboxRow, NewMailOutboxRow } from '../../db/schema.js'

/** Rows per INSERT: well under both engines' limit on bound parameters (SQLite 32766, PostgreSQL 65535). */
const ROWS_PER_INSERT = 1000

/** Inserts outbox rows, many in one statement, and answers their ids in the order given. */
export async function insertOutboxMails(db: Db, rows: NewMailOutboxRow[]): Promise<number[]> {
  const ids: number[] = []
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const inserted = await db
      .insertInto('mail_outbox')
      .values(rows.slice(start, start + ROWS_PER_INSERT))
      .returning('id')
      .execute()
    // Both engines answer RETURNING in the order of the VALUES list.
    for (const row of inserted) ids.push(Number(row.id))
  }
  return ids
}

/** The mails among `ids` still waiting to be sent, oldest first. */
export async function findQueuedMails(db: Db, ids: number[]): Promise<MailOutboxRow[]> {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('mail_outbox').selectAll().where('id', 'in', ids).where('state', '=', 'queued').orderBy('id').execute()
  return rows.map((row) => ({ ...row, id: Number(row.id) }))
}

/** Marks mails sent (one statement for the batch); a mail already marked stays as it was. */
export async function markMailsSent(db: Db, ids: number[], at: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ state: 'sent', sent_at: at, attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', 'in', ids)
    .where('state', '=', 'queued')
    .execute()
}

/** Records a failed attempt at one mail: it stays queued for the next attempt, or fails for good when `final`. */
export async function recordMailFailure(db: Db, id: number, error: string, final: boolean): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error, ...(final ? { state: 'failed' as const } : {}) }))
    .where('id', '=', id)
    .where('state', '=', 'queued')
    .execute()
}

/** Deletes up to `limit` mails sent before `before`; answers how many went. */
export async function deleteSentMails(db: Db, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('mail_outbox')
    .where('id', 'in', (eb) =>
      eb.selectFrom('mail_outbox').select('id').where('state', '=', 'sent').where('sent_at', '<', before).orderBy('id').limit(limit),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
