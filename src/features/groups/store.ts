import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { Database, NamespaceRow, NamespaceUpdate } from '../../db/schema.js'
import { containsPattern, type SearchTerms } from '../namespaces/index.js'

// Owns the rows of `namespaces` of kind group: their settings, visibility and deletion (namespaces owns paths and
// ancestry, projects the projects below).

export function findGroupById(db: Db, id: number) {
  return db.selectFrom('namespaces').selectAll().where('kind', '=', 'group').where('id', '=', id).executeTakeFirst()
}

export async function findGroupsByIds(db: Db, ids: readonly number[]): Promise<NamespaceRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('namespaces')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute()
}

// The list's conditions come from the access core, which builds them for a query over `namespaces`.
export type GroupsEb = ExpressionBuilder<Database, 'namespaces'>
export type GroupCondition = (eb: GroupsEb) => Expression<SqlBool>

export type ParentFilter = { kind: 'children'; id: number } | { kind: 'descendants'; group: NamespaceRow } | { kind: 'top' }

export interface GroupFilters {
  /** Which groups the caller may list; null lists none. */
  scope: GroupCondition | null
  parent: ParentFilter | null
  excludeIds: readonly number[]
  visibilityLevel: number | null
  /** `fullPath` matches full paths and full names (GL `include_parents`), otherwise paths and names. */
  search: { terms: SearchTerms; fullPath: boolean } | null
}

function searchCondition(eb: GroupsEb, terms: SearchTerms, columns: readonly ['path' | 'full_path', 'name' | 'full_name']) {
  return eb.or(
    columns.map((column) => {
      if (terms.kind === 'exact') return eb(column, '=', terms.text)
      return eb.and(terms.words.map((word) => sql<SqlBool>`lower(${sql.ref(column)}) like ${containsPattern(word)} escape '\\'`))
    }),
  )
}

/** Groups matching the list filters, unordered. */
export function selectGroups(db: Db, filters: GroupFilters) {
  let query = db.selectFrom('namespaces').selectAll().where('kind', '=', 'group').where('pending_delete', '=', 0)
  const { scope, parent, search } = filters
  query = scope ? query.where((eb) => scope(eb)) : query.where(sql<SqlBool>`1 = 0`)
  if (parent?.kind === 'top') query = query.where('parent_id', 'is', null)
  if (parent?.kind === 'children') query = query.where('parent_id', '=', parent.id)
  if (parent?.kind === 'descendants') {
    query = query.where('traversal_ids', 'like', `${parent.group.traversal_ids}%`).where('id', '<>', parent.group.id)
  }
  if (filters.excludeIds.length > 0) query = query.where('id', 'not in', [...filters.excludeIds])
  if (filters.visibilityLevel !== null) query = query.where('visibility_level', '=', filters.visibilityLevel)
  if (search) {
    const columns = search.fullPath ? (['full_path', 'full_name'] as const) : (['path', 'name'] as const)
    query = query.where((eb) => searchCondition(eb, search.terms, columns))
  }
  return query
}

export type GroupQuery = ReturnType<typeof selectGroups>

/** Just what similarity ordering needs of every match, up to `limit` of them. */
export function fetchSimilarityCandidates(query: GroupQuery, limit: number) {
  return query.clearSelect().select(['id', 'path', 'name', 'parent_id']).limit(limit).execute()
}

/** Ids of the groups a user owns directly (GL User#owned_groups): Owner memberships that have not expired. */
export function ownedGroupIds(db: Db, userId: number, today: string) {
  return db
    .selectFrom('members')
    .select('namespace_id')
    .where('user_id', '=', userId)
    .where('namespace_id', 'is not', null)
    .where('access_level', '=', 50)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
}

/** Whether another group under the same parent has this exact name (GL Namespace name uniqueness, scoped to the parent). */
export async function isNameTakenInParent(db: Db, parentId: number, name: string, exceptId: number | null): Promise<boolean> {
  let query = db.selectFrom('namespaces').select('id').where('parent_id', '=', parentId).where('name', '=', name)
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Whether a group holds projects more visible than `level` (its own, not its subgroups'). */
export async function hasProjectsAbove(db: Db, groupId: number, level: number): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('namespace_id', '=', groupId)
    .where('visibility_level', '>', level)
    .executeTakeFirst()
  return row !== undefined
}

/** Whether a group has direct subgroups more visible than `level`. */
export async function hasSubgroupsAbove(db: Db, groupId: number, level: number): Promise<boolean> {
  const row = await db
    .selectFrom('namespaces')
    .select('id')
    .where('parent_id', '=', groupId)
    .where('visibility_level', '>', level)
    .executeTakeFirst()
  return row !== undefined
}

export function updateGroupRow(db: Db, id: number, changes: NamespaceUpdate) {
  return db.updateTable('namespaces').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/** Locks sharing in every group below a group (GL `force_share_with_group_lock_on_descendants`). */
export async function lockSharingBelow(db: Db, group: NamespaceRow) {
  await db
    .updateTable('namespaces')
    .set({ share_with_group_lock: 1 })
    .where('traversal_ids', 'like', `${group.traversal_ids}%`)
    .where('id', '<>', group.id)
    .execute()
}

/** Lowers a group and every group below it to at most `level` (GL Groups::TransferService). */
export async function capVisibilityOfGroupsAtOrBelow(db: Db, group: NamespaceRow, level: number) {
  await db
    .updateTable('namespaces')
    .set({ visibility_level: level })
    .where('traversal_ids', 'like', `${group.traversal_ids}%`)
    .where('visibility_level', '>', level)
    .execute()
}

export async function countOwnerMembers(db: Db, groupId: number): Promise<number> {
  const row = await db
    .selectFrom('members')
    .select(sql<number>`count(*)`.as('count'))
    .where('namespace_id', '=', groupId)
    .where('access_level', '=', 50)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Removes a group; its subgroups, their projects and every membership go with it (foreign keys cascade). */
export async function deleteGroupRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('namespaces').where('id', '=', id).execute()
}

/** A group and its subgroups, by id. */
export function groupsInSubtree(db: Db, group: NamespaceRow) {
  return db
    .selectFrom('namespaces')
    .select(['id', 'parent_id'])
    .where('traversal_ids', 'like', `${group.traversal_ids}%`)
    .orderBy('id')
    .execute()
}

/** Marks a group and its subgroups for deletion. */
export async function markGroupsAtOrBelowPendingDelete(db: Db, group: NamespaceRow): Promise<void> {
  await db.updateTable('namespaces').set({ pending_delete: 1 }).where('traversal_ids', 'like', `${group.traversal_ids}%`).execute()
}

/** Where the projects of a group and its subgroups keep their repositories. */
export function projectsInSubtree(db: Db, group: NamespaceRow) {
  return db
    .selectFrom('projects')
    .select(['id', 'namespace_id', 'repository_storage'])
    .where('namespace_id', 'in', db.selectFrom('namespaces').select('id').where('traversal_ids', 'like', `${group.traversal_ids}%`))
    .orderBy('id')
    .execute()
}

/** The wiki repositories of a group and its subgroups. */
export function wikiRepositoriesInSubtree(db: Db, group: NamespaceRow) {
  return db
    .selectFrom('namespaces')
    .select(['id', 'wiki_repository_storage as storage'])
    .where('traversal_ids', 'like', `${group.traversal_ids}%`)
    .where('wiki_repository_storage', 'is not', null)
    .$narrowType<{ storage: string }>()
    .execute()
}
