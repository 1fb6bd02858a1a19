import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import { executeRows, preparedQuery } from '../../db/prepared.js'
import type { Database, NamespaceRow, NewProjectRow, ProjectRow, ProjectUpdate, ProjectsTable, UserRow } from '../../db/schema.js'
import { containsPattern, type SearchTerms } from '../namespaces/index.js'

export function insertProject(db: Db, row: NewProjectRow): Promise<ProjectRow> {
  return db.insertInto('projects').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateProjectRow(db: Db, id: number, changes: ProjectUpdate): Promise<ProjectRow> {
  return db.updateTable('projects').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/** Removes the project; memberships, stars and redirects go with it (foreign keys cascade), forks lose their source. */
export async function deleteProjectRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('projects').where('id', '=', id).execute()
}

/** Sets a project's import state only when it is in one of `from`; false when it was elsewhere. */
export async function moveImportStatusRow(
  db: Db,
  projectId: number,
  from: readonly string[],
  to: Pick<ProjectUpdate, 'import_status' | 'import_error'>,
): Promise<boolean> {
  const result = await db
    .updateTable('projects')
    .set(to)
    .where('id', '=', projectId)
    .where('import_status', 'in', [...from])
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export function setForkedFrom(db: Db, projectId: number, sourceId: number): Promise<ProjectRow | undefined> {
  return db
    .updateTable('projects')
    .set({ forked_from_project_id: sourceId })
    .where('id', '=', projectId)
    .where('forked_from_project_id', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

export function clearForkedFrom(db: Db, projectId: number): Promise<ProjectRow | undefined> {
  return db
    .updateTable('projects')
    .set({ forked_from_project_id: null })
    .where('id', '=', projectId)
    .where('forked_from_project_id', 'is not', null)
    .returningAll()
    .executeTakeFirst()
}

export async function markProjectsPendingDelete(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('projects')
    .set({ pending_delete: 1 })
    .where('id', 'in', [...ids])
    .execute()
}

/** The ids of the namespaces at or below a group. */
function namespacesAtOrBelow(db: Db, group: NamespaceRow) {
  return db.selectFrom('namespaces').select('id').where('traversal_ids', 'like', `${group.traversal_ids}%`)
}

export async function markProjectsBelowGroupPendingDelete(db: Db, group: NamespaceRow): Promise<void> {
  await db.updateTable('projects').set({ pending_delete: 1 }).where('namespace_id', 'in', namespacesAtOrBelow(db, group)).execute()
}

export async function capVisibilityOfProjectsBelowGroup(db: Db, group: NamespaceRow, level: number): Promise<void> {
  await db
    .updateTable('projects')
    .set({ visibility_level: level })
    .where('namespace_id', 'in', namespacesAtOrBelow(db, group))
    .where('visibility_level', '>', level)
    .execute()
}

/** Where the snippets of projects keep their repositories. */
export function snippetRepositoriesOfProjects(db: Db, projectIds: readonly number[]) {
  if (projectIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('snippets')
    .select(['id', 'repository_storage'])
    .where('project_id', 'in', [...projectIds])
    .execute()
}

export const findUserRowById = preparedQuery((db: Db, id: number) => db.selectFrom('users').selectAll().where('id', '=', id))

export const countForksOfProject = preparedQuery((db: Db, id: number) =>
  db
    .selectFrom('projects')
    .select(sql<number>`count(*)`.as('count'))
    .where('forked_from_project_id', '=', id)
    .where('pending_delete', '=', 0),
)

const forksOfProjects = preparedQuery((db: Db, ids: readonly number[]) =>
  db
    .selectFrom('projects')
    .select(['forked_from_project_id as id', sql<number>`count(*)`.as('count')])
    .where('forked_from_project_id', 'in', ids)
    .where('pending_delete', '=', 0)
    .groupBy('forked_from_project_id'),
)

/** Forks per project, for a page of projects in one query. */
export async function countForks(db: Db, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map()
  const rows = await forksOfProjects(db, [...new Set(ids)])
  return new Map(rows.map((r) => [Number(r.id), Number(r.count)]))
}

function notExpired(today: string) {
  return (eb: ExpressionBuilder<Database, 'members'>) => eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)])
}

/** A user's unexpired group memberships, each with the group's traversal ids (for roles inherited down the tree). */
export const findGroupMembershipsOfUser = preparedQuery((db: Db, userId: number, today: string) =>
  db
    .selectFrom('members')
    .innerJoin('namespaces', 'namespaces.id', 'members.namespace_id')
    .select(['members.namespace_id', 'members.access_level', 'namespaces.traversal_ids'])
    .where('members.user_id', '=', userId)
    .where(notExpired(today)),
)

const projectMembershipsOfUser = preparedQuery((db: Db, userId: number, projectIds: readonly number[], today: string) =>
  db
    .selectFrom('members')
    .select(['members.project_id', 'members.access_level'])
    .where('members.user_id', '=', userId)
    .where('members.project_id', 'in', projectIds)
    .where(notExpired(today)),
)

/** A user's unexpired direct memberships of the given projects. */
export async function findProjectMembershipsOfUser(db: Db, userId: number, projectIds: readonly number[], today: string) {
  if (projectIds.length === 0) return []
  return projectMembershipsOfUser(db, userId, [...new Set(projectIds)], today)
}

export const findProjectMembershipLevel = preparedQuery((db: Db, userId: number, projectId: number, today: string) =>
  db
    .selectFrom('members')
    .select('members.access_level')
    .where('members.user_id', '=', userId)
    .where('members.project_id', '=', projectId)
    .where((eb) => eb.or([eb('members.expires_at', 'is', null), eb('members.expires_at', '>', today)])),
)

// ---------------------------------------------------------------------------------------------
// Lists

// Conditions come from the access core and the service, which build them for a query over `projects`.
export type ProjectsEb = ExpressionBuilder<Database, 'projects'>
export type ProjectCondition = (eb: ProjectsEb) => Expression<SqlBool>
export type ProjectQuery = SelectQueryBuilder<Database, 'projects', ProjectRow>

export interface ProjectFilters {
  /** Visibility, role and feature conditions, all of which must hold. */
  conditions: ProjectCondition[]
  /** Only projects of these namespaces, or of namespaces at or below these traversal ids. */
  namespaces?: { ids: readonly number[]; subtrees: readonly string[] }
  starredBy?: number
  idAfter?: number
  idBefore?: number
  visibilityLevel?: number
  /** Every topic, matched case-insensitively. */
  topics?: readonly string[]
  /** `includeNamespace` matches full paths and full names instead of paths and names (GL `search_namespaces`). */
  search?: { terms: SearchTerms; includeNamespace: boolean }
  archived?: boolean
  lastActivityAfter?: string
  lastActivityBefore?: string
  updatedAfter?: string
  updatedBefore?: string
  repositoryStorage?: string
  creatorId?: number
}

function matchesSearch(column: string, terms: SearchTerms): Expression<SqlBool> {
  const ref = sql.ref(`projects.${column}`)
  if (terms.kind === 'exact') return sql<SqlBool>`lower(${ref}) = ${terms.text.toLowerCase()}`
  const clauses = terms.words.map((word) => sql<SqlBool>`lower(${ref}) like ${containsPattern(word)} escape '\\'`)
  return clauses.length === 1 ? clauses[0] : sql<SqlBool>`(${sql.join(clauses, sql` and `)})`
}

/** A topic in the JSON array column, compared case-insensitively. */
function hasTopic(topic: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(projects.topics) like ${containsPattern(JSON.stringify(topic.toLowerCase()))} escape '\\'`
}

/** Projects matching every filter, unordered. */
export function selectProjects(db: Db, filters: ProjectFilters): ProjectQuery {
  // Projects marked for deletion are gone for every reader (GL `Project.without_deleted`).
  let query = db.selectFrom('projects').selectAll('projects').where('projects.pending_delete', '=', 0)
  for (const condition of filters.conditions) query = query.where(condition)
  if (filters.namespaces) {
    const { ids, subtrees } = filters.namespaces
    query = query.where((eb) =>
      eb.or([
        eb('projects.namespace_id', 'in', ids.length ? [...ids] : [0]),
        ...(subtrees.length
          ? [
              eb(
                'projects.namespace_id',
                'in',
                eb
                  .selectFrom('namespaces')
                  .select('namespaces.id')
                  .where((n) => n.or(subtrees.map((prefix) => n('namespaces.traversal_ids', 'like', `${prefix}%`)))),
              ),
            ]
          : []),
      ]),
    )
  }
  if (filters.starredBy !== undefined) {
    const userId = filters.starredBy
    query = query.where('projects.id', 'in', (eb) =>
      eb.selectFrom('project_stars').select('project_stars.project_id').where('project_stars.user_id', '=', userId),
    )
  }
  if (filters.idAfter !== undefined) query = query.where('projects.id', '>', filters.idAfter)
  if (filters.idBefore !== undefined) query = query.where('projects.id', '<', filters.idBefore)
  if (filters.visibilityLevel !== undefined) query = query.where('projects.visibility_level', '=', filters.visibilityLevel)
  for (const topic of filters.topics ?? []) query = query.where(hasTopic(topic))
  if (filters.search) {
    const { terms, includeNamespace } = filters.search
    const columns = includeNamespace ? ['full_path', 'full_name', 'description'] : ['path', 'name', 'description']
    query = query.where((eb) => eb.or(columns.map((c) => matchesSearch(c, terms))))
  }
  if (filters.archived !== undefined) query = query.where('projects.archived', '=', filters.archived ? 1 : 0)
  if (filters.lastActivityAfter !== undefined) query = query.where('projects.last_activity_at', '>', filters.lastActivityAfter)
  if (filters.lastActivityBefore !== undefined) query = query.where('projects.last_activity_at', '<', filters.lastActivityBefore)
  if (filters.updatedAfter !== undefined) query = query.where('projects.updated_at', '>=', filters.updatedAfter)
  if (filters.updatedBefore !== undefined) query = query.where('projects.updated_at', '<=', filters.updatedBefore)
  if (filters.repositoryStorage !== undefined) query = query.where('projects.repository_storage', '=', filters.repositoryStorage)
  if (filters.creatorId !== undefined) query = query.where('projects.creator_id', '=', filters.creatorId)
  return query
}

export type OrderColumn = 'id' | 'name' | 'path' | 'updated_at' | 'last_activity_at' | 'star_count'

/** Ordered by a column with the id as tie-breaker in the same direction (GL `order_options_with_tie_breaker`). */
export function orderProjects(query: ProjectQuery, column: OrderColumn, direction: 'asc' | 'desc'): ProjectQuery {
  if (column === 'id') return query.orderBy('projects.id', direction)
  return query.orderBy(`projects.${column}` as keyof ProjectsTable & string, direction).orderBy('projects.id', direction)
}

/** The first `limit` rows of a query. */
export function fetchProjects(db: Db, query: ProjectQuery, limit: number): Promise<ProjectRow[]> {
  return executeRows(db, query.limit(limit))
}

/** The searchable text of every matching project, for ranking by similarity. */
export function fetchSearchTexts(query: ProjectQuery) {
  return query.clearSelect().select(['projects.id', 'projects.path', 'projects.name', 'projects.description']).execute()
}

// ---------------------------------------------------------------------------------------------
// Paths

/** Whether a project of the namespace other than `exceptId` has this name (GL: names are unique per namespace). */
export async function isNameTakenInNamespace(db: Db, namespaceId: number, name: string, exceptId: number | null): Promise<boolean> {
  let query = db.selectFrom('projects').select('id').where('namespace_id', '=', namespaceId).where('name', '=', name)
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** A project of the namespace with this path or name (GL TransferService's conflict check). */
export async function hasProjectNamedLike(db: Db, namespaceId: number, path: string, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('namespace_id', '=', namespaceId)
    .where((eb) => eb.or([eb(sql`lower(path)`, '=', path.toLowerCase()), eb('name', '=', name)]))
    .executeTakeFirst()
  return row !== undefined
}

/** Projects in a user's personal namespace (GL `personal_projects_count`). */
export async function countPersonalProjects(db: Db, namespaceId: number): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select(sql<number>`count(*)`.as('count'))
    .where('namespace_id', '=', namespaceId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export function moveProjectRow(db: Db, id: number, changes: ProjectUpdate): Promise<ProjectRow> {
  return updateProjectRow(db, id, changes)
}

// ---------------------------------------------------------------------------------------------
// Stars

export const findStar = preparedQuery((db: Db, userId: number, projectId: number) =>
  db.selectFrom('project_stars').select('created_at').where('user_id', '=', userId).where('project_id', '=', projectId),
)

/** Adds a star once; false when it was there already. */
export async function insertStar(db: Db, userId: number, projectId: number, at: string): Promise<boolean> {
  const inserted = await db
    .insertInto('project_stars')
    .values({ user_id: userId, project_id: projectId, created_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'project_id']).doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false
  await db
    .updateTable('projects')
    .set({ star_count: sql`star_count + 1` })
    .where('id', '=', projectId)
    .execute()
  return true
}

/** Removes a star; false when there was none. */
export async function deleteStar(db: Db, userId: number, projectId: number): Promise<boolean> {
  const deleted = await db.deleteFrom('project_stars').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst()
  if (Number(deleted.numDeletedRows) === 0) return false
  await db
    .updateTable('projects')
    .set({ star_count: sql`star_count - 1` })
    .where('id', '=', projectId)
    .execute()
  return true
}

function matchesUser(search: string): (eb: ExpressionBuilder<Database, 'users'>) => Expression<SqlBool> {
  const text = search.trim().toLowerCase()
  const partial = [...text].length >= 3
  const like = (column: string) =>
    partial
      ? sql<SqlBool>`lower(${sql.ref(`users.${column}`)}) like ${containsPattern(text)} escape '\\'`
      : sql<SqlBool>`lower(${sql.ref(`users.${column}`)}) = ${text}`
  return (eb) => eb.or([like('name'), like('username'), eb(sql`lower(users.public_email)`, '=', text)])
}

export interface StarrerFilters {
  projectId: number
  search?: string
  /** Users with a private profile are listed only to administrators and to themselves. */
  viewerId: number | null
  viewerIsAdmin: boolean
  /** GL UsersStarProject#sort_by_attribute; oldest star first when absent. */
  order?: StarrerOrder
}

/** The starrers page's orders (GL `starrers_sort_options_hash`). */
export const STARRER_ORDERS = ['name_asc', 'name_desc', 'created_desc', 'created_asc'] as const
export type StarrerOrder = (typeof STARRER_ORDERS)[number]

/** The project's stars with their users, oldest first unless ordered otherwise (GL UsersStarProjectsFinder). */
export function selectStarrers(db: Db, filters: StarrerFilters) {
  let query = db
    .selectFrom('project_stars')
    .innerJoin('users', 'users.id', 'project_stars.user_id')
    .selectAll('users')
    .select('project_stars.created_at as starred_since')
    .where('project_stars.project_id', '=', filters.projectId)
  if (filters.search !== undefined && filters.search.trim() !== '') query = query.where(matchesUser(filters.search))
  if (!filters.viewerIsAdmin) {
    const viewerId = filters.viewerId
    query = query.where((eb) => eb.or([eb('users.private_profile', '=', 0), ...(viewerId !== null ? [eb('users.id', '=', viewerId)] : [])]))
  }
  switch (filters.order) {
    case 'name_asc':
    case 'name_desc':
      return query.orderBy('users.name', filters.order === 'name_asc' ? 'asc' : 'desc').orderBy('users.id', 'asc')
    case 'created_desc':
      return query.orderBy('project_stars.created_at', 'desc').orderBy('project_stars.user_id', 'desc')
    default:
      return query.orderBy('project_stars.created_at', 'asc').orderBy('project_stars.user_id', 'asc')
  }
}

/** How many users starred the project, and how many of them show their profile. */
export async function countStarrers(db: Db, projectId: number): Promise<{ total: number; publicProfiles: number }> {
  const [counted] = await executeRows(
    db,
    db
      .selectFrom('project_stars')
      .innerJoin('users', 'users.id', 'project_stars.user_id')
      .where('project_stars.project_id', '=', projectId)
      .select([
        sql<number | string>`count(*)`.as('total'),
        sql<number | string | null>`sum(case when users.private_profile = 0 then 1 else 0 end)`.as('public_profiles'),
      ]),
  )
  return { total: Number(counted?.total ?? 0), publicProfiles: Number(counted?.public_profiles ?? 0) }
}

export interface TeamFilters {
  projectId: number
  /** The project namespace's traversal ids: members of the groups above count. */
  traversalIds: string
  search?: string
  skipUsers?: readonly number[]
  today: string
  minLevel: number
}

/** Users with a role on the project, directly or through the groups above it, by id (GL `project.team.users`). */
export function selectTeamUsers(db: Db, filters: TeamFilters): SelectQueryBuilder<Database, 'users', UserRow> {
  const { projectId, traversalIds, today, minLevel } = filters
  let query = db
    .selectFrom('users')
    .selectAll('users')
    .where('users.id', 'in', (eb) =>
      eb
        .selectFrom('members')
        .leftJoin('namespaces', 'namespaces.id', 'members.namespace_id')
        .select('members.user_id')
        .where('members.access_level', '>=', minLevel)
        .where(notExpired(today))
        .where((m) =>
          m.or([m('members.project_id', '=', projectId), sql<SqlBool>`${traversalIds} like (namespaces.traversal_ids || '%')`]),
        ),
    )
  if (filters.search !== undefined && filters.search.trim() !== '') query = query.where(matchesUser(filters.search))
  if (filters.skipUsers && filters.skipUsers.length > 0) query = query.where('users.id', 'not in', [...filters.skipUsers])
  return query.orderBy('users.id', 'asc')
}
