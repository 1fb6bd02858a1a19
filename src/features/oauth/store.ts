import type { Db } from '../../db/index.js'
import { insertIntoEmptyTable } from '../../db/locking.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NewOAuthGrantRow, NewOAuthTokenRow, OAuthGrantRow, OAuthTokenRow } from '../../db/schema.js'
import type { Insertable, Selectable } from 'kysely'
import type { OAuthSigningKeysTable } from '../../db/schema.js'
import { selectAuthorizedGroupIds } from '../access/index.js'

// Owns `oauth_access_grants`, `oauth_access_tokens` and `oauth_signing_keys`.

export async function insertGrant(db: Db, row: NewOAuthGrantRow): Promise<OAuthGrantRow> {
  return db.insertInto('oauth_access_grants').values(row).returningAll().executeTakeFirstOrThrow()
}

export function findGrantByDigest(db: Db, digest: string) {
  return db.selectFrom('oauth_access_grants').selectAll().where('code_digest', '=', digest).executeTakeFirst()
}

const markGrantUsed = preparedQuery((db: Db, id: number, at: string) =>
  db.updateTable('oauth_access_grants').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).returning('id'),
)

/** Marks a code used; false when it already was (two exchanges racing: only one wins). */
export async function revokeGrant(db: Db, id: number, at: string): Promise<boolean> {
  return (await markGrantUsed(db, id, at)).length > 0
}

// Prepared with every column, so that one statement serves every token the token endpoint issues.
const insertTokenRow = preparedQuery(
  (
    db: Db,
    applicationId: number | null,
    resourceOwnerId: number,
    tokenDigest: string,
    refreshTokenDigest: string | null,
    scopes: string,
    expiresIn: number | null,
    grantId: number | null,
    previousTokenId: number | null,
    createdAt: string,
    revokedAt: string | null,
  ) =>
    db
      .insertInto('oauth_access_tokens')
      .values({
        application_id: applicationId,
        resource_owner_id: resourceOwnerId,
        token_digest: tokenDigest,
        refresh_token_digest: refreshTokenDigest,
        scopes,
        expires_in: expiresIn,
        grant_id: grantId,
        previous_token_id: previousTokenId,
        created_at: createdAt,
        revoked_at: revokedAt,
      })
      .returningAll(),
)

export async function insertAccessToken(db: Db, row: NewOAuthTokenRow): Promise<OAuthTokenRow> {
  const [inserted] = await insertTokenRow(
    db,
    row.application_id ?? null,
    row.resource_owner_id,
    row.token_digest,
    row.refresh_token_digest ?? null,
    row.scopes,
    row.expires_in ?? null,
    row.grant_id ?? null,
    row.previous_token_id ?? null,
    row.created_at,
    row.revoked_at ?? null,
  )
  return inserted
}

/** The token an API request presents, looked up on every OAuth-authenticated request. */
export const findAccessTokenByDigest = preparedQuery((db: Db, digest: string) =>
  db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', digest),
)

/** The token a refresh presents, looked up on every refresh. */
export const findAccessTokenByRefreshDigest = preparedQuery((db: Db, digest: string) =>
  db.selectFrom('oauth_access_tokens').selectAll().where('refresh_token_digest', '=', digest),
)

export function findGrantById(db: Db, id: number) {
  return db.selectFrom('oauth_access_grants').selectAll().where('id', '=', id).executeTakeFirst()
}

const markTokenRevoked = preparedQuery((db: Db, id: number, at: string) =>
  db.updateTable('oauth_access_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).returning('id'),
)

/** Revokes one token (its access and refresh halves); false when it already was. */
export async function revokeAccessToken(db: Db, id: number, at: string): Promise<boolean> {
  return (await markTokenRevoked(db, id, at)).length > 0
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

export async function revokeTokenOfOwner(db: Db, userId: number, tokenId: number, at: string) {
  await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: at })
    .where('id', '=', tokenId)
    .where('resource_owner_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** Revokes every token and code a user gave an application (DK Application.revoke_tokens_and_grants_for). */
export async function revokeTokensAndGrantsOfOwner(db: Db, userId: number, applicationId: number, at: string) {
  await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: at })
    .where('application_id', '=', applicationId)
    .where('resource_owner_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute()
  await db
    .updateTable('oauth_access_grants')
    .set({ revoked_at: at })
    .where('application_id', '=', applicationId)
    .where('resource_owner_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute()
}

/** The key that signs ID tokens: the first one stored, so every node picks the same one. */
export function findFirstSigningKey(db: Db) {
  return db.selectFrom('oauth_signing_keys').selectAll().orderBy('id').limit(1).executeTakeFirst()
}

/** Stores a new signing key unless one exists, and returns the first key: nodes starting together agree on one. */
export async function insertFirstSigningKey(db: Db, row: Insertable<OAuthSigningKeysTable>): Promise<Selectable<OAuthSigningKeysTable>> {
  await insertIntoEmptyTable(db, 'oauth_signing_keys', row)
  return (await findFirstSigningKey(db))!
}

/** Full paths of the groups a user belongs to directly (Guest or above), with the role, oldest group first. */
export function selectDirectGroupMemberships(db: Db, userId: number, today: string) {
  return db
    .selectFrom('members as m')
    .innerJoin('namespaces as n', 'n.id', 'm.namespace_id')
    .select(['n.full_path', 'm.access_level'])
    .where('m.user_id', '=', userId)
    .where('n.kind', '=', 'group')
    .where('m.access_level', '>=', GUEST_LEVEL)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
    .orderBy('n.id')
    .execute()
}

/** Full paths of the groups a user belongs to directly and of every group below them, oldest first. */
export async function selectMembershipGroupPaths(db: Db, userId: number, today: string): Promise<string[]> {
  const rows = await db
    .selectFrom('namespaces')
    .select('full_path')
    .where('id', 'in', selectAuthorizedGroupIds(db, userId, GUEST_LEVEL, today))
    .orderBy('id')
    .execute()
  return rows.map((row) => row.full_path)
}

const GUEST_LEVEL = 10
