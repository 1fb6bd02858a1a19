import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { Database, NamespaceRow, NewNamespaceRow } from '../../db/schema.js'
import { containsPattern, type SearchTerms } from './search.js'

// Owns `namespaces` (paths, ancestry, creation; groups own the settings, visibility and deletion of the rows of kind
// group), `redirect_routes`, and the `full_path`/`full_name` of the projects below a namespace that moves.

export function findNamespaceByFullPath(db: Db, fullPath: string) {
  return db
    .selectFrom('namespaces')
    .selectAll()
    .where(sql`lower(full_path)`, '=', fullPath.toLowerCase())
    .executeTakeFirst()
}

export function findPersonalNamespace(db: Db, userId: number) {
  return db.selectFrom('namespaces').selectAll().where('owner_id', '=', userId).where('kind', '=', 'user').executeTakeFirst()
}

/** Whether a full path is used by a namespace or a project other than the ones excepted (one path space, as GitLab's routes). */
export async function isFullPathTaken(
  db: Db,
  fullPath: string,
  except: { namespaceId?: number; projectId?: number } = {},
): Promise<boolean> {
  const lower = fullPath.toLowerCase()
  let namespaces = db
    .selectFrom('namespaces')
    .select('id')
    .where(sql`lower(full_path)`, '=', lower)
  if (except.namespaceId !== undefined) namespaces = namespaces.where('id', '<>', except.namespaceId)
  if (await namespaces.executeTakeFirst()) return true
  let projects = db
    .selectFrom('projects')
    .select('id')
    .where(sql`lower(full_path)`, '=', lower)
  if (except.projectId !== undefined) projects = projects.where('id', '<>', except.projectId)
  return (await projects.executeTakeFirst()) !== undefined
}

export async function insertNamespace(db: Db, row: NewNamespaceRow, parent: NamespaceRow | null): Promise<NamespaceRow> {
  const inserted = await db.insertInto('namespaces').values(row).returning('id').executeTakeFirstOrThrow()
  return db
    .updateTable('namespaces')
    .set({ traversal_ids: `${parent ? parent.traversal_ids : ''}${inserted.id}/` })
    .where('id', '=', inserted.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** A path in use again belongs to its new owner: redirects from it go. */
export async function deleteRedirectsFrom(db: Db, fullPaths: string[]) {
  if (fullPaths.length === 0) return
  await db
    .deleteFrom('redirect_routes')
    .where(
      sql`lower(path)`,
      'in',
      fullPaths.map((p) => p.toLowerCase()),
    )
    .execute()
}

/** Old paths at or below a full path now in use again go (GL Route#delete_conflicting_redirects). */
export async function deleteRedirectsAtOrBelow(db: Db, fullPath: string) {
  const lower = fullPath.toLowerCase()
  await db
    .deleteFrom('redirect_routes')
    .where((eb) =>
      eb.or([
        eb(sql`lower(path)`, '=', lower),
        sql<SqlBool>`lower(path) like ${`${lower.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`} escape '\\'`,
      ]),
    )
    .execute()
}

export async function insertRedirect(
  db: Db,
  path: string,
  target: { projectId: number } | { namespaceId: number },
  at: string,
): Promise<void> {
  await db
    .insertInto('redirect_routes')
    .values({
      path,
      project_id: 'projectId' in target ? target.projectId : null,
      namespace_id: 'namespaceId' in target ? target.namespaceId : null,
      created_at: at,
    })
    .execute()
}

/**
 * Moves a namespace (and everything below it) to a new full path and full name: namespaces and projects
 * below get the new prefix, their ancestry follows a new parent, and every old path becomes a redirect.
 */
export async function relocateNamespace(
  db: Db,
  namespace: NamespaceRow,
  target: { name: string; path: string; fullPath: string; fullName: string; parent: NamespaceRow | null | undefined },
  at: string,
): Promise<NamespaceRow> {
  const oldPath = namespace.full_path
  const oldName = namespace.full_name
  const oldTraversal = namespace.traversal_ids
  const newTraversal = target.parent === undefined ? oldTraversal : `${target.parent ? target.parent.traversal_ids : ''}${namespace.id}/`
  const descendants = await db
    .selectFrom('namespaces')
    .select(['id', 'full_path', 'full_name', 'traversal_ids'])
    .where('traversal_ids', 'like', `${oldTraversal}%`)
    .execute()
  const projects = await db
    .selectFrom('projects')
    .select(['id', 'full_path', 'full_name'])
    .where(
      'namespace_id',
      'in',
      descendants.map((d) => d.id),
    )
    .execute()
  const pathOf = (full: string) => target.fullPath + full.slice(oldPath.length)
  const nameOf = (full: string) => target.fullName + full.slice(oldName.length)
  if (target.fullPath.toLowerCase() !== oldPath.toLowerCase() || target.fullPath !== oldPath) {
    const redirects = [
      ...descendants.map((d) => ({ path: d.full_path, namespace_id: d.id, project_id: null, created_at: at })),
      ...projects.map((p) => ({ path: p.full_path, namespace_id: null, project_id: p.id, created_at: at })),
    ].filter((r) => r.path.toLowerCase() !== pathOf(r.path).toLowerCase())
    await deleteRedirectsFrom(db, [...descendants.map((d) => pathOf(d.full_path)), ...projects.map((p) => pathOf(p.full_path))])
    await deleteRedirectsFrom(
      db,
      redirects.map((r) => r.path),
    )
    if (redirects.length > 0) await db.insertInto('redirect_routes').values(redirects).execute()
  }
  for (const d of descendants) {
    await db
      .updateTable('namespaces')
      .set({
        full_path: pathOf(d.full_path),
        full_name: nameOf(d.full_name),
        traversal_ids: newTraversal + d.traversal_ids.slice(oldTraversal.length),
      })
      .where('id', '=', d.id)
      .execute()
  }
  for (const p of projects) {
    await db
      .updateTable('projects')
      .set({ full_path: pathOf(p.full_path), full_name: nameOf(p.full_name) })
      .where('id', '=', p.id)
      .execute()
  }
  return db
    .updateTable('namespaces')
    .set({
      name: target.name,
      path: target.path,
      parent_id: target.parent === undefined ? namespace.parent_id : (target.parent?.id ?? null),
      updated_at: at,
    })
    .where('id', '=', namespace.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

// ---------------------------------------------------------------------------------------------
// The namespaces API (GL lib/api/namespaces.rb)

/** A namespace with what its entity needs of its owner (user namespaces' avatar and web URL). */
export type NamespaceWithOwner = NamespaceRow & { owner_username: string | null; owner_email: string | null }

function selectWithOwner(db: Db) {
  return db
    .selectFrom('namespaces')
    .leftJoin('users', 'users.id', 'namespaces.owner_id')
    .selectAll('namespaces')
    .select(['users.username as owner_username', 'users.email as owner_email'])
}

export interface NamespaceFilters {
  /** null: every namespace; else the user's personal namespace and the groups they belong to directly. */
  member: { userId: number; ownedOnly: boolean; today: string } | null
  topLevelOnly: boolean
  /** `fullPath` matches full paths and full names (`full_path_search`), otherwise paths and names. */
  search: { terms: SearchTerms; fullPath: boolean } | null
}

/** Namespaces matching the list filters, by ascending id (GL User#namespaces, Namespace.search). */
export function selectNamespaces(db: Db, filters: NamespaceFilters) {
  let query = selectWithOwner(db)
  const { member, search } = filters
  if (member) {
    const groups = db
      .selectFrom('members')
      .select('namespace_id')
      .where('user_id', '=', member.userId)
      .where('namespace_id', 'is not', null)
      .where('access_level', member.ownedOnly ? '=' : '>=', member.ownedOnly ? 50 : 10)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', member.today)]))
    query = query.where((eb) =>
      eb.or([
        eb.and([eb('namespaces.owner_id', '=', member.userId), eb('namespaces.kind', '=', 'user')]),
        eb.and([eb('namespaces.kind', '=', 'group'), eb('namespaces.id', 'in', groups)]),
      ]),
    )
  }
  if (filters.topLevelOnly) query = query.where('namespaces.parent_id', 'is', null)
  if (search) {
    const columns = search.fullPath
      ? (['namespaces.full_path', 'namespaces.full_name'] as const)
      : (['namespaces.path', 'namespaces.name'] as const)
    const { terms } = search
    query = query.where((eb) =>
      eb.or(
        columns.map((column) =>
          terms.kind === 'exact'
            ? eb(column, '=', terms.text)
            : eb.and(terms.words.map((word) => sql<SqlBool>`lower(${sql.ref(column)}) like ${containsPattern(word)} escape '\\'`)),
        ),
      ),
    )
  }
  return query.orderBy('namespaces.id', 'asc')
}

/** A user namespace or group by id or full path (GL helpers.rb `find_namespace`; old paths do not redirect). */
export function findNamespaceWithOwner(db: Db, idOrPath: string) {
  const query = selectWithOwner(db)
  if (/^\d+$/.test(idOrPath)) {
    const id = Number(idOrPath)
    return Number.isSafeInteger(id) ? query.where('namespaces.id', '=', id).executeTakeFirst() : Promise.resolve(undefined)
  }
  return query.where(sql`lower(namespaces.full_path)`, '=', idOrPath.toLowerCase()).executeTakeFirst()
}

/** Distinct members of each group and the groups below it (GL `users_with_descendants.count`). */
export async function countMembersWithDescendants(db: Db, groups: readonly NamespaceRow[], today: string): Promise<Map<number, number>> {
  if (groups.length === 0) return new Map()
  const rows = await db
    .selectFrom('namespaces as g')
    .innerJoin('namespaces as d', (join) => join.on(sql<SqlBool>`d.traversal_ids like (g.traversal_ids || '%')`))
    .innerJoin('members as m', 'm.namespace_id', 'd.id')
    .select(['g.id as id', sql<number>`count(distinct m.user_id)`.as('count')])
    .where(
      'g.id',
      'in',
      groups.map((g) => g.id),
    )
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
    .groupBy('g.id')
    .execute()
  return new Map(rows.map((row) => [row.id, Number(row.count)]))
}

/** Projects in each group and the groups below it (GL `all_projects.count`). */
export async function countProjectsWithDescendants(db: Db, groups: readonly NamespaceRow[]): Promise<Map<number, number>> {
  if (groups.length === 0) return new Map()
  const rows = await db
    .selectFrom('namespaces as g')
    .innerJoin('namespaces as d', (join) => join.on(sql<SqlBool>`d.traversal_ids like (g.traversal_ids || '%')`))
    .innerJoin('projects as p', 'p.namespace_id', 'd.id')
    .select(['g.id as id', sql<number>`count(p.id)`.as('count')])
    .where(
      'g.id',
      'in',
      groups.map((g) => g.id),
    )
    .groupBy('g.id')
    .execute()
  return new Map(rows.map((row) => [row.id, Number(row.count)]))
}

/** Paths and names of the namespaces directly under a parent (the top level when null), for availability checks. */
export function findSiblingPathsAndNames(db: Db, parentId: number | null) {
  const query = db.selectFrom('namespaces').select(['path', 'name'])
  return (parentId === null ? query.where('parent_id', 'is', null) : query.where('parent_id', '=', parentId)).execute()
}

/** Which of `ids` meet a condition the access core builds for a query over `namespaces`. */
export async function filterNamespaceIds(
  db: Db,
  ids: readonly number[],
  condition: (eb: ExpressionBuilder<Database, 'namespaces'>) => Expression<SqlBool>,
): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await db
    .selectFrom('namespaces')
    .select('id')
    .where('id', 'in', [...ids])
    .where((eb) => condition(eb))
    .execute()
  return new Set(rows.map((row) => row.id))
}
