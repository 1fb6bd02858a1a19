import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { Updateable } from 'kysely'
import type { NewOAuthApplicationRow, OAuthApplicationRow, OAuthApplicationsTable } from '../../db/schema.js'

// Owns `oauth_applications`; the tokens and codes issued to them are oauth's, read here for the authorized
// applications pages.

/** The application a client_id names, looked up by every OAuth request. */
export const findApplicationByUid = preparedQuery((db: Db, uid: string) =>
  db.selectFrom('oauth_applications').selectAll().where('uid', '=', uid),
)

export function findApplicationById(db: Db, id: number) {
  return db.selectFrom('oauth_applications').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertApplication(db: Db, row: NewOAuthApplicationRow): Promise<OAuthApplicationRow> {
  return db.insertInto('oauth_applications').values(row).returningAll().executeTakeFirstOrThrow()
}

/** Instance-wide applications, made by administrators (GL ApplicationsFinder: owner_id IS NULL). */
export function listInstanceApplicationRows(db: Db) {
  return db.selectFrom('oauth_applications').selectAll().where('owner_id', 'is', null).orderBy('id').execute()
}

export function listApplicationRowsOfOwner(db: Db, ownerId: number) {
  return db.selectFrom('oauth_applications').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute()
}

export function findApplicationOfOwner(db: Db, ownerId: number, id: number) {
  return db.selectFrom('oauth_applications').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst()
}

export async function updateApplication(db: Db, id: number, changes: Updateable<OAuthApplicationsTable>): Promise<OAuthApplicationRow> {
  return db.updateTable('oauth_applications').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/** Removes an application; its grants and tokens go with it (foreign keys cascade). */
export async function deleteApplication(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('oauth_applications').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** How many tokens each application has issued, for the owner's list ("Clients"). */
export async function countTokensOfApplications(db: Db, applicationIds: number[]): Promise<Map<number, number>> {
  if (applicationIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('oauth_access_tokens')
    .select(['application_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('application_id', 'in', applicationIds)
    .groupBy('application_id')
    .execute()
  return new Map(rows.map((row) => [row.application_id as number, Number(row.count)]))
}

/** A user's tokens that are not revoked, newest first, with their application's name (null: no application). */
export function listActiveTokensOfOwner(db: Db, userId: number) {
  return db
    .selectFrom('oauth_access_tokens')
    .leftJoin('oauth_applications', 'oauth_applications.id', 'oauth_access_tokens.application_id')
    .select([
      'oauth_access_tokens.id',
      'oauth_access_tokens.application_id',
      'oauth_access_tokens.scopes',
      'oauth_access_tokens.created_at',
      'oauth_applications.name as application_name',
    ])
    .where('oauth_access_tokens.resource_owner_id', '=', userId)
    .where('oauth_access_tokens.revoked_at', 'is', null)
    .orderBy('oauth_access_tokens.created_at', 'desc')
    .orderBy('oauth_access_tokens.id', 'desc')
    .execute()
}

export function findActiveTokenOfOwner(db: Db, userId: number, tokenId: number) {
  return db
    .selectFrom('oauth_access_tokens')
    .select(['id'])
    .where('id', '=', tokenId)
    .where('resource_owner_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}
