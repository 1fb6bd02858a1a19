import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NewOAuthGrantRow, NewOAuthTokenRow, OAuthGrantRow, OAuthTokenRow } from '../../db/schema.js'

export async function insertGrant(db: Db, row: NewOAuthGrantRow): Promise<OAuthGrantRow> {
  return db.insertInto('oauth_access_grants').values(row).returningAll().executeTakeFirstOrThrow()
}

export function findGrantByDigest(db: Db, digest: string) {
  return db.selectFrom('oauth_access_grants').selectAll().where('code_digest', '=', digest).executeTakeFirst()
}

/** Marks a code used; false when it already was (two exchanges racing: only one wins). */
export async function revokeGrant(db: Db, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_access_grants')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function insertAccessToken(db: Db, row: NewOAuthTokenRow): Promise<OAuthTokenRow> {
  return db.insertInto('oauth_access_tokens').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The token an API request presents, looked up on every OAuth-authenticated request. */
export const findAccessTokenByDigest = preparedQuery((db: Db, digest: string) =>
  db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', digest),
)

export function findAccessTokenByRefreshDigest(db: Db, digest: string) {
  return db.selectFrom('oauth_access_tokens').selectAll().where('refresh_token_digest', '=', digest).executeTakeFirst()
}

/** Revokes one token (its access and refresh halves); false when it already was. */
export async function revokeAccessToken(db: Db, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Revokes every token issued for a code, first or refreshed: the answer to a code used twice. */
export async function revokeTokensOfGrant(db: Db, grantId: number, at: string) {
  await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: at })
    .where('grant_id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** The live (not revoked) tokens a user gave an application, newest first (DK `authorized_tokens_for`). */
export function findAuthorizedTokens(db: Db, resourceOwnerId: number, applicationId: number) {
  return db
    .selectFrom('oauth_access_tokens')
    .select(['id', 'scopes', 'created_at'])
    .where('resource_owner_id', '=', resourceOwnerId)
    .where('application_id', '=', applicationId)
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .execute()
}
