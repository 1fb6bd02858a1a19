import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { AccountTokenPurpose, AccountTokenRow, AccountTokensTable, SessionRow, SessionsTable } from '../../db/schema.js'
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

/** Keeps the digest of the link just sent for `purpose`, replacing the user's previous one (Devise keeps one of each). */
export async function replaceAccountToken(db: Db, row: Insertable<AccountTokensTable>) {
  await db
    .insertInto('account_tokens')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'purpose']).doUpdateSet({ token_digest: row.token_digest, created_at: row.created_at }))
    .execute()
}

export function findAccountToken(db: Db, userId: number, purpose: AccountTokenPurpose): Promise<AccountTokenRow | undefined> {
  return db.selectFrom('account_tokens').selectAll().where('user_id', '=', userId).where('purpose', '=', purpose).executeTakeFirst()
}

export async function findAccountTokenByDigest(db: Db, purpose: AccountTokenPurpose, digest: string): Promise<AccountTokenRow | undefined> {
  const row = await db
    .selectFrom('account_tokens')
    .selectAll()
    .where('token_digest', '=', digest)
    .where('purpose', '=', purpose)
    .executeTakeFirst()
  return row && { ...row, user_id: Number(row.user_id) }
}

/** Deletes the user's token for `purpose`; with `digest`, only that one (a link used once): true when one went. */
export async function deleteAccountToken(db: Db, userId: number, purpose: AccountTokenPurpose, digest?: string): Promise<boolean> {
  let query = db.deleteFrom('account_tokens').where('user_id', '=', userId).where('purpose', '=', purpose)
  if (digest !== undefined) query = query.where('token_digest', '=', digest)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
