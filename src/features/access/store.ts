import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import { preparedQuery } from '../../db/prepared.js'
import type { IssueRow, MergeRequestRow, NamespaceRow, ProjectRow } from '../../db/schema.js'

/**
 * A user's roles on one project: direct membership, and inherited ones from the groups above it (a
 * group's traversal ids are a prefix of the project namespace's). Expired memberships count for nothing.
 */
export const findProjectRoles = preparedQuery((db: Db, userId: number, projectId: number, traversalIds: string, today: string) =>
  db
    .selectFrom('members as m')
    .leftJoin('namespaces as n', 'n.id', 'm.namespace_id')
    .select([
      sql<number | null>`max(case when m.project_id = ${projectId} then m.access_level end)`.as('project_level'),
      sql<number | null>`max(case when m.namespace_id is not null then m.access_level end)`.as('group_level'),
    ])
    .where('m.user_id', '=', userId)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
    .where((eb) => eb.or([eb('m.project_id', '=', projectId), sql<SqlBool>`${traversalIds} like (n.traversal_ids || '%')`])),
)

/** A user's role on a group: the highest of their memberships in it and in its ancestors. */
export const findGroupRole = preparedQuery((db: Db, userId: number, traversalIds: string, today: string) =>
  db
    .selectFrom('members as m')
    .innerJoin('namespaces as n', 'n.id', 'm.namespace_id')
    .select(sql<number | null>`max(m.access_level)`.as('level'))
    .where('m.user_id', '=', userId)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
    .where(sql<SqlBool>`${traversalIds} like (n.traversal_ids || '%')`),
)

/** Whether a user belongs to a subgroup of a group, or to a project anywhere below it. */
export async function hasMembershipBelow(db: Db, userId: number, traversalIds: string, today: string): Promise<boolean> {
  const row = await db
    .selectFrom('members as m')
    .leftJoin('namespaces as n', 'n.id', 'm.namespace_id')
    .leftJoin('projects as p', 'p.id', 'm.project_id')
    .leftJoin('namespaces as pn', 'pn.id', 'p.namespace_id')
    .select('m.id')
    .where('m.user_id', '=', userId)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
    .where((eb) =>
      eb.or([sql<SqlBool>`n.traversal_ids like ${traversalIds + '%'}`, sql<SqlBool>`pn.traversal_ids like ${traversalIds + '%'}`]),
    )
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Ids of the groups where a user's own membership has at least `minLevel`, with every group below them. */
export function selectAuthorizedGroupIds(db: Db, userId: number, minLevel: number, today: string) {
  return db
    .selectFrom('members as m')
    .innerJoin('namespaces as g', 'g.id', 'm.namespace_id')
    .innerJoin('namespaces as d', (join) => join.on(sql<SqlBool>`d.traversal_ids like (g.traversal_ids || '%')`))
    .select('d.id')
    .where('m.user_id', '=', userId)
    .where('m.access_level', '>=', minLevel)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
}

/**
 * The projects where a user has at least `minLevel`, as a condition on `<alias>.id` and `<alias>.namespace_id`:
 * direct memberships, memberships of a group above the project, and the user's personal namespace (always
 * Owner). Each part is a small set (the user's memberships), so a list stays an index walk over projects.
 */
// Lists join projects under aliases, so the builder's table set varies by query.
export function authorizedProjectsCondition(
  db: Db,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  eb: ExpressionBuilder<any, any>,
  alias: string,
  userId: number,
  minLevel: number,
  today: string,
): Expression<SqlBool> {
  const direct = db
    .selectFrom('members as m')
    .select('m.project_id')
    .where('m.user_id', '=', userId)
    .where('m.project_id', 'is not', null)
    .where('m.access_level', '>=', minLevel)
    .where((w) => w.or([w('m.expires_at', 'is', null), w('m.expires_at', '>', today)]))
  const personal = db.selectFrom('namespaces as n').select('n.id').where('n.owner_id', '=', userId).where('n.kind', '=', 'user')
  return eb.or([
    eb(sql.ref(`${alias}.id`), 'in', direct),
    eb(sql.ref(`${alias}.namespace_id`), 'in', selectAuthorizedGroupIds(db, userId, minLevel, today)),
    eb(sql.ref(`${alias}.namespace_id`), 'in', personal),
  ])
}

/** The ids of the groups above anything a user belongs to, which they may therefore see. */
export function selectGroupIdsAboveMemberships(db: Db, userId: number, today: string) {
  const below = db
    .selectFrom('members as m')
    .leftJoin('projects as p', 'p.id', 'm.project_id')
    .innerJoin('namespaces as n', (join) =>
      join.on((eb) => eb.or([eb('n.id', '=', eb.ref('m.namespace_id')), eb('n.id', '=', eb.ref('p.namespace_id'))])),
    )
    .select('n.traversal_ids')
    .where('m.user_id', '=', userId)
    .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today)]))
  return db
    .selectFrom('namespaces as a')
    .select('a.id')
    .where('a.kind', '=', 'group')
    .where((eb) => eb.exists(below.where(sql<SqlBool>`n.traversal_ids like (a.traversal_ids || '%')`)))
}

// What loaders read to find a resource before deciding whether the caller may see it.

export const findProjectById = preparedQuery((db: Db, id: number) => db.selectFrom('projects').selectAll().where('id', '=', id))

export function findProjectByFullPath(db: Db, fullPath: string) {
  return db
    .selectFrom('projects')
    .selectAll()
    .where(sql`lower(full_path)`, '=', fullPath.toLowerCase())
    .executeTakeFirst()
}

const projectsByIds = preparedQuery((db: Db, ids: readonly number[]) => db.selectFrom('projects').selectAll().where('id', 'in', ids))

export async function findProjectsByIds(db: Db, ids: readonly number[]): Promise<ProjectRow[]> {
  if (ids.length === 0) return []
  return projectsByIds(db, [...new Set(ids)])
}

const namespacesByIds = preparedQuery((db: Db, ids: readonly number[]) => db.selectFrom('namespaces').selectAll().where('id', 'in', ids))

export async function findNamespacesByIds(db: Db, ids: readonly number[]): Promise<NamespaceRow[]> {
  if (ids.length === 0) return []
  return namespacesByIds(db, [...new Set(ids)])
}

export const findNamespaceById = preparedQuery((db: Db, id: number) => db.selectFrom('namespaces').selectAll().where('id', '=', id))

/** The project a redirect route points at, by an old full path. */
export function findRedirectedProjectId(db: Db, fullPath: string) {
  return db
    .selectFrom('redirect_routes')
    .select('project_id')
    .where(sql`lower(path)`, '=', fullPath.toLowerCase())
    .where('project_id', 'is not', null)
    .executeTakeFirst()
}

/** A group not marked for deletion, by id or full path. */
export function findGroupByIdOrFullPath(db: Db, idOrPath: string) {
  const query = db.selectFrom('namespaces').selectAll().where('kind', '=', 'group').where('pending_delete', '=', 0)
  if (/^\d+$/.test(idOrPath)) {
    const id = Number(idOrPath)
    return Number.isSafeInteger(id) ? query.where('id', '=', id).executeTakeFirst() : Promise.resolve(undefined)
  }
  return query.where(sql`lower(full_path)`, '=', idOrPath.toLowerCase()).executeTakeFirst()
}

export function findIssueByIid(db: Db, projectId: number, iid: number): Promise<IssueRow | undefined> {
  return db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst()
}

export async function findIssueAssigneeIds(db: Db, issueId: number): Promise<number[]> {
  const rows = await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).orderBy('user_id').execute()
  return rows.map((row) => Number(row.user_id))
}

export function findMergeRequestByIid(db: Db, projectId: number, iid: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst()
}
