import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { RepositoryLocation } from '../repositories/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { NewUserRow, UserRow, UserUpdate } from '../../db/schema.js'

/** The caller's user, looked up on every authenticated request. */
export const findUserForAuthentication = preparedQuery((db: Db, id: number) => db.selectFrom('users').selectAll().where('id', '=', id))

export function findUserById(db: Db, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findUserByUsername(db: Db, username: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst()
}

/** Users by any of these usernames, compared case-insensitively (GL User.by_username). */
export function findUsersByUsernames(db: Db, usernames: readonly string[]): Promise<UserRow[]> {
  if (usernames.length === 0) return Promise.resolve([])
  return db
    .selectFrom('users')
    .selectAll()
    .where(
      sql`lower(username)`,
      'in',
      usernames.map((username) => username.toLowerCase()),
    )
    .execute()
}

export function findUserByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst()
}

/** The user a sign-in form names by username or e-mail, case-insensitively (GL User.find_for_database_authentication). */
export function findUserByLogin(db: Db, login: string) {
  const value = login.trim().toLowerCase()
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(username)`, '=', value), eb(sql`lower(email)`, '=', value)]))
    .orderBy('id')
    .executeTakeFirst()
}

/** One more failed sign-in, counted in the database so concurrent attempts all count; the new count. */
export async function incrementFailedAttempts(db: Db, id: number, at: string): Promise<number> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1), updated_at: at }))
    .where('id', '=', id)
    .returning('failed_attempts')
    .executeTakeFirst()
  return row?.failed_attempts ?? 0
}

/** Locks the account unless it is already locked (the first lock's time stands); true when this call locked it. */
export async function lockUserAccess(db: Db, id: number, at: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ locked_at: at }).where('id', '=', id).where('locked_at', 'is', null).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

const usersByIds = preparedQuery((db: Db, ids: readonly number[]) => db.selectFrom('users').selectAll().where('id', 'in', ids))

export async function findUsersByIds(db: Db, ids: readonly number[]): Promise<UserRow[]> {
  if (ids.length === 0) return []
  return usersByIds(db, [...new Set(ids)])
}

/** Whether another user than `exceptId` has this username, compared case-insensitively. */
export async function isUsernameTaken(db: Db, username: string, exceptId: number | null = null): Promise<boolean> {
  let query = db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', username.toLowerCase())
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Whether another user than `exceptId` has this e-mail, compared case-insensitively. */
export async function isEmailTaken(db: Db, email: string, exceptId: number | null = null): Promise<boolean> {
  let query = db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(email)`, '=', email.toLowerCase())
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export async function insertUser(db: Db, row: NewUserRow): Promise<UserRow> {
  return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateUserRow(db: Db, id: number, changes: UserUpdate): Promise<UserRow | undefined> {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
}

/** The repositories that go with a user's rows: their personal projects' (and wikis'), and snippets of theirs or of those projects. */
export async function repositoriesOfUser(db: Db, userId: number): Promise<RepositoryLocation[]> {
  const personal = db.selectFrom('namespaces').select('id').where('owner_id', '=', userId).where('kind', '=', 'user')
  const projects = await db.selectFrom('projects').select(['id', 'repository_storage']).where('namespace_id', 'in', personal).execute()
  const projectIds = projects.map((p) => p.id)
  const snippets = await db
    .selectFrom('snippets')
    .select(['id', 'repository_storage'])
    .where((eb) => eb.or([eb('author_id', '=', userId), eb('project_id', 'in', projectIds.length ? projectIds : [0])]))
    .execute()
  return [
    ...projects.flatMap((p) => [
      { kind: 'project' as const, id: p.id, storage: p.repository_storage },
      { kind: 'project-wiki' as const, id: p.id, storage: p.repository_storage },
    ]),
    ...snippets.map((s) => ({ kind: 'snippet' as const, id: s.id, storage: s.repository_storage })),
  ]
}

/** A user's memberships that have not expired, oldest first. */
export function currentMembershipsOfUser(db: Db, userId: number, today: string) {
  return db
    .selectFrom('members')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
    .orderBy('id')
    .execute()
}

/** Removes the user; their tokens go with them (foreign keys cascade). */
export async function deleteUserRow(db: Db, id: number): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export interface UserFilters {
  username?: string
  search?: string
  /** Search also matches primary e-mails (administrators' searches). */
  searchEmails: boolean
  active: boolean
  blocked: boolean
  external: boolean
  excludeExternal: boolean
  admins: boolean
  /** Deactivated users only (the admin area's tab). */
  deactivated?: boolean
  excludeBots: boolean
  createdAfter?: string
  createdBefore?: string
  /** Matches nobody: identities by provider are not kept. */
  externIdentity: boolean
}

/** Shorter queries match names and usernames exactly, longer ones anywhere (GitLab's MIN_CHARS_FOR_PARTIAL_MATCHING). */
const MIN_CHARS_FOR_PARTIAL_MATCHING = 3

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

function matchesText(column: 'name' | 'username', query: string): Expression<SqlBool> {
  if ([...query].length < MIN_CHARS_FOR_PARTIAL_MATCHING) return sql<SqlBool>`lower(${sql.ref(column)}) = ${query}`
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${likePattern(query)} escape '\\'`
}

/** Users matching the list filters, unordered. */
export function selectUsers(db: Db, filters: UserFilters) {
  let query = db.selectFrom('users').selectAll()
  if (filters.externIdentity) query = query.where(sql<SqlBool>`1 = 0`)
  if (filters.username !== undefined) query = query.where(sql`lower(username)`, '=', filters.username.toLowerCase())
  if (filters.search !== undefined) {
    const search = filters.search.trim().toLowerCase()
    if (search === '') query = query.where(sql<SqlBool>`1 = 0`)
    else {
      query = query.where((eb) =>
        eb.or([
          matchesText('name', search),
          matchesText('username', search),
          eb(sql`lower(public_email)`, '=', search),
          ...(filters.searchEmails ? [eb(sql`lower(email)`, '=', search)] : []),
        ]),
      )
    }
  }
  if (filters.active) query = query.where('state', '=', 'active')
  if (filters.blocked) query = query.where('state', 'in', ['blocked', 'ldap_blocked'])
  if (filters.external) query = query.where('external', '=', 1)
  if (filters.excludeExternal) query = query.where('external', '=', 0)
  if (filters.admins) query = query.where('admin', '=', 1)
  if (filters.deactivated) query = query.where('state', '=', 'deactivated')
  if (filters.excludeBots) query = query.where('bot', '=', 0)
  if (filters.createdAfter !== undefined) query = query.where('created_at', '>=', filters.createdAfter)
  if (filters.createdBefore !== undefined) query = query.where('created_at', '<=', filters.createdBefore)
  return query
}

/** GitLab's search relevance: public e-mail, then username, then name equal to the query; then by name. */
export function orderBySearchRelevance(query: ReturnType<typeof selectUsers>, search: string) {
  const text = search.trim().toLowerCase()
  return query
    .orderBy(
      sql`case when lower(public_email) = ${text} then 0 when lower(username) = ${text} then 1 when lower(name) = ${text} then 2 else 3 end`,
    )
    .orderBy('name', 'asc')
    .orderBy('id', 'asc')
}
