import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { SessionRow, SessionsTable } from '../../db/schema.js'
import type { Insertable, Updateable } from 'kysely'

/** The session a cookie names, looked up on every page and on session-authenticated API requests. */
export const findSessionByDigest = preparedQuery((db: Db, digest: string) =>
  db.selectFrom('sessions').selectAll().where('session_digest', '=', digest),
)

export async function insertSession(db: Db, row: Insertable<SessionsTable>): Promise<SessionRow> {
  return db.insertInto('sessions').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateSession(db: Db, id: number, changes: Updateable<SessionsTable>) {
  await db.updateTable('sessions').set(changes).where('id', '=', id).execute()
}

export async function deleteSession(db: Db, id: number) {
  await db.deleteFrom('sessions').where('id', '=', id).execute()
}

export async function deleteUserSessions(db: Db, userId: number) {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute()
}

export async function deleteExpiredSessions(db: Db, now: string) {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute()
}
