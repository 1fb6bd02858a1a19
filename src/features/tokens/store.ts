import type { Db } from '../../db/index.js'
import type { NewTokenRow, TokenRow, UserRow } from '../../db/schema.js'

export function findTokenWithUserByDigest(db: Db, digest: string) {
  return db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .selectAll('u')
    .select([
      't.id as token_id',
      't.scopes as token_scopes',
      't.impersonation as token_impersonation',
      't.revoked as token_revoked',
      't.expires_at as token_expires_at',
      't.last_used_at as token_last_used_at',
    ])
    .where('t.token_digest', '=', digest)
    .executeTakeFirst()
}

export async function insertToken(db: Db, row: NewTokenRow): Promise<TokenRow> {
  return db.insertInto('personal_access_tokens').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateTokenLastUsed(db: Db, tokenId: number, at: string) {
  await db.updateTable('personal_access_tokens').set({ last_used_at: at }).where('id', '=', tokenId).execute()
}

export type TokenWithUser = NonNullable<Awaited<ReturnType<typeof findTokenWithUserByDigest>>>

/** Splits a joined row back into its user. */
export function userOf(row: TokenWithUser): UserRow {
  const { token_id, token_scopes, token_impersonation, token_revoked, token_expires_at, token_last_used_at, ...user } = row
  return user
}

export async function findTokenDigestOwner(db: Db, digest: string): Promise<number | undefined> {
  const row = await db.selectFrom('personal_access_tokens').select('user_id').where('token_digest', '=', digest).executeTakeFirst()
  return row?.user_id
}
