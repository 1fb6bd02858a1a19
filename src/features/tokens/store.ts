import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NewTokenRow, TokenRow } from '../../db/schema.js'

/** What authentication needs of a token, looked up on every request. */
export const findTokenForAuthentication = preparedQuery((db: Db, digest: string) =>
  db
    .selectFrom('personal_access_tokens')
    .select(['id', 'user_id', 'scopes', 'impersonation', 'revoked', 'expires_at', 'last_used_at', 'last_used_ips'])
    .where('token_digest', '=', digest),
)

export async function insertToken(db: Db, row: NewTokenRow): Promise<TokenRow> {
  return db.insertInto('personal_access_tokens').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateTokenUse(db: Db, tokenId: number, changes: { last_used_at?: string; last_used_ips?: string }) {
  await db.updateTable('personal_access_tokens').set(changes).where('id', '=', tokenId).execute()
}

export async function findTokenDigestOwner(db: Db, digest: string): Promise<number | undefined> {
  const row = await db.selectFrom('personal_access_tokens').select('user_id').where('token_digest', '=', digest).executeTakeFirst()
  return row?.user_id
}

/** The user a token route names by id (users/:user_id/...). */
export function findUserRowById(db: Db, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findTokenById(db: Db, id: number) {
  return db.selectFrom('personal_access_tokens').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findUserTokenById(db: Db, userId: number, id: number, impersonation: boolean) {
  return db
    .selectFrom('personal_access_tokens')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('impersonation', '=', impersonation ? 1 : 0)
    .executeTakeFirst()
}

export interface TokenFilters {
  userId?: number
  userIds?: number[]
  impersonation?: boolean
  /** 'active': not revoked and expiring after `today`; 'inactive': revoked or expired by `today`. */
  state?: 'active' | 'inactive'
  today: string
  revoked?: boolean
  createdBefore?: string
  createdAfter?: string
  lastUsedBefore?: string
  lastUsedAfter?: string
  expiresBefore?: string
  expiresAfter?: string
  /** LIKE patterns that lower(name) must all match, lower-cased and escaped with backslashes. */
  namePatterns?: string[]
  order: { column: 'id' | 'created_at' | 'updated_at' | 'name' | 'expires_at' | 'last_used_at'; direction: 'asc' | 'desc' }
}

/** The ordered query behind the token lists; the caller pages it. */
export function selectTokens(db: Db, filters: TokenFilters) {
  let query = db.selectFrom('personal_access_tokens').selectAll()
  if (filters.userId !== undefined) query = query.where('user_id', '=', filters.userId)
  if (filters.userIds !== undefined)
    query = filters.userIds.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('user_id', 'in', filters.userIds)
  if (filters.impersonation !== undefined) query = query.where('impersonation', '=', filters.impersonation ? 1 : 0)
  if (filters.state === 'active') {
    query = query.where('revoked', '=', 0).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', filters.today)]))
  } else if (filters.state === 'inactive') {
    query = query.where((eb) => eb.or([eb('revoked', '=', 1), eb('expires_at', '<=', filters.today)]))
  }
  if (filters.revoked !== undefined) query = query.where('revoked', '=', filters.revoked ? 1 : 0)
  if (filters.createdBefore !== undefined) query = query.where('created_at', '<=', filters.createdBefore)
  if (filters.createdAfter !== undefined) query = query.where('created_at', '>=', filters.createdAfter)
  if (filters.lastUsedBefore !== undefined) query = query.where('last_used_at', '<=', filters.lastUsedBefore)
  if (filters.lastUsedAfter !== undefined) query = query.where('last_used_at', '>=', filters.lastUsedAfter)
  if (filters.expiresBefore !== undefined) query = query.where('expires_at', '<', filters.expiresBefore)
  if (filters.expiresAfter !== undefined) query = query.where('expires_at', '>=', filters.expiresAfter)
  for (const pattern of filters.namePatterns ?? []) query = query.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`)
  const { column, direction } = filters.order
  // PostgreSQL's placement of nulls, on both engines.
  if (column !== 'id') query = query.orderBy(column, (ob) => (direction === 'asc' ? ob.asc().nullsLast() : ob.desc().nullsFirst()))
  // The id breaks ties; GitLab's expiry and last-use sorts use id descending.
  const idDirection = column === 'expires_at' || column === 'last_used_at' ? 'desc' : direction
  return query.orderBy('id', idDirection)
}

/** Marks a token revoked; false when it already was. */
export async function revokeTokenRow(db: Db, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('personal_access_tokens')
    .set({ revoked: 1, updated_at: at })
    .where('id', '=', id)
    .where('revoked', '=', 0)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Ids of the tokens made by rotating any of `ids`. */
export async function findTokenIdsRotatedFrom(db: Db, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('personal_access_tokens').select('id').where('previous_token_id', 'in', ids).execute()
  return rows.map((row) => row.id)
}

/** Revokes those of `ids` that are neither revoked nor expired by `today`. */
export async function revokeActiveTokens(db: Db, ids: number[], today: string) {
  if (ids.length === 0) return
  await db
    .updateTable('personal_access_tokens')
    .set({ revoked: 1 })
    .where('id', 'in', ids)
    .where('revoked', '=', 0)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
    .execute()
}
