import { sql, type SelectQueryBuilder, type SqlBool, type Updateable } from 'kysely'
import type { Db } from '../../db/index.js'
import type { MemberRow, MembersTable, NewMemberRow, UserRow } from '../../db/schema.js'

/** Where memberships live: a project's direct members, or a group's. */
export type SourceRef = { kind: 'project'; id: number } | { kind: 'group'; id: number }

const MINIMAL_ACCESS = 5

export function insertMember(db: Db, row: NewMemberRow): Promise<MemberRow> {
  return db.insertInto('members').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateMemberRow(db: Db, id: number, changes: Updateable<MembersTable>): Promise<MemberRow> {
  return db.updateTable('members').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteMemberRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('members').where('id', '=', id).execute()
}

function sourceColumn(source: SourceRef) {
  return source.kind === 'project' ? ('project_id' as const) : ('namespace_id' as const)
}

/** A user's direct membership row of a source, expired or not. */
export function findMemberRow(db: Db, source: SourceRef, userId: number) {
  return db.selectFrom('members').selectAll().where(sourceColumn(source), '=', source.id).where('user_id', '=', userId).executeTakeFirst()
}

export interface MemberFilters {
  /** Matches names and usernames anywhere, public e-mails exactly (GitLab's User.search without a minimum length). */
  query?: string
  userIds?: number[]
  skipUsers?: number[]
  /** Group memberships with Minimal Access are listed only where that role is allowed. */
  includeMinimalAccess: boolean
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

// Lists join members (alias m or the ranked alias) with users (alias u); the builder's table set varies by query.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = any

function applyFilters(query: AnySelect, filters: MemberFilters, alias: string): AnySelect {
  let q = query
  if (filters.query !== undefined) {
    const text = filters.query.toLowerCase()
    q = q.where((eb: AnySelect) =>
      eb.or([
        sql<SqlBool>`lower(u.name) like ${likePattern(text)} escape '\\'`,
        sql<SqlBool>`lower(u.username) like ${likePattern(text)} escape '\\'`,
        sql<SqlBool>`lower(u.public_email) = ${text}`,
      ]),
    )
  }
  if (filters.userIds !== undefined) q = q.where(sql.ref(`${alias}.user_id`), 'in', filters.userIds.length ? filters.userIds : [0])
  if (filters.skipUsers !== undefined && filters.skipUsers.length > 0) q = q.where(sql.ref(`${alias}.user_id`), 'not in', filters.skipUsers)
  return q
}

/** GitLab orders a searched list by relevance (User.search), else by membership id (the pagination default). */
function applyOrder(query: AnySelect, filters: MemberFilters, alias: string): AnySelect {
  if (filters.query === undefined) return query.orderBy(sql.ref(`${alias}.id`), 'asc')
  const text = filters.query.toLowerCase()
  return query
    .orderBy(
      sql`case when lower(u.public_email) = ${text} then 0 when lower(u.username) = ${text} then 1 when lower(u.name) = ${text} then 2 else 3 end`,
    )
    .orderBy('u.name', 'asc')
    .orderBy(sql.ref(`${alias}.id`), 'asc')
}

function isCurrent(today: string, alias: string) {
  return sql<SqlBool>`(${sql.ref(`${alias}.expires_at`)} is null or ${sql.ref(`${alias}.expires_at`)} > ${today})`
}

/** The direct members of a project or group, current ones only (expired memberships count for nothing). */
export function selectDirectMembers(db: Db, source: SourceRef, today: string, filters: MemberFilters) {
  let query: AnySelect = db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .selectAll('m')
    .where(sourceColumn(source) === 'project_id' ? 'm.project_id' : 'm.namespace_id', '=', source.id)
    .where(isCurrent(today, 'm'))
  if (!filters.includeMinimalAccess) query = query.where('m.access_level', '>', MINIMAL_ACCESS)
  return applyOrder(applyFilters(query, filters, 'm'), filters, 'm') as SelectQueryBuilder<AnySelect, AnySelect, MemberRow>
}

/** Where inherited memberships come from. */
export interface InheritanceScope {
  /** The project whose direct members count, if any. */
  projectId: number | null
  /** The group whose own rows win ties among group rows: the source group, or a project's group. */
  nearestGroupId: number | null
  /** The groups whose members are inherited, the nearest one included. */
  groupIds: number[]
  /** Minimal Access rows of this group count (a top-level group where the role is allowed). */
  minimalAccessGroupId: number | null
}

export type RankedMemberRow = MemberRow & { effective_level: number }

/**
 * One row per user among the direct and inherited memberships (GL MembersFinder, GroupMembersFinder): a project's own
 * row first, else the group row with the highest level, the nearest group's on a tie, then the one that expires last
 * and the oldest. `effective_level` is the user's highest level among them, which a project reports (its authorizations).
 */
export function selectAllMembers(db: Db, scope: InheritanceScope, today: string, filters: MemberFilters) {
  const projectId = scope.projectId ?? 0
  const nearestGroupId = scope.nearestGroupId ?? 0
  const groupIds = scope.groupIds.length ? scope.groupIds : [0]
  const candidates = db
    .selectFrom('members as c')
    .selectAll('c')
    .select([
      sql<number>`max(c.access_level) over (partition by c.user_id)`.as('effective_level'),
      sql<number>`row_number() over (partition by c.user_id order by
        case when c.project_id = ${projectId} then 0 else 1 end,
        c.access_level desc,
        case when c.namespace_id = ${nearestGroupId} then 0 else 1 end,
        case when c.expires_at is null then 0 else 1 end,
        c.expires_at desc,
        c.created_at asc,
        c.id asc)`.as('position'),
    ])
    .where(isCurrent(today, 'c'))
    .where((eb) =>
      eb.or([
        eb('c.project_id', '=', projectId),
        eb.and([
          eb('c.namespace_id', 'in', groupIds),
          eb.or([eb('c.access_level', '>', MINIMAL_ACCESS), eb('c.namespace_id', '=', scope.minimalAccessGroupId ?? 0)]),
        ]),
      ]),
    )
  const query: AnySelect = db
    .selectFrom(candidates.as('r'))
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .selectAll('r')
    .where('r.position', '=', 1)
  return applyOrder(applyFilters(query, filters, 'r'), filters, 'r') as SelectQueryBuilder<AnySelect, AnySelect, RankedMemberRow>
}

/** A user's highest current membership among the given groups, with that group's name (for GitLab's inherited-level rule). */
export function findHighestGroupMembership(db: Db, groupIds: number[], userId: number, today: string) {
  if (groupIds.length === 0) return Promise.resolve(undefined)
  return db
    .selectFrom('members as m')
    .innerJoin('namespaces as n', 'n.id', 'm.namespace_id')
    .select(['m.access_level', 'n.name'])
    .where('m.namespace_id', 'in', groupIds)
    .where('m.user_id', '=', userId)
    .where(isCurrent(today, 'm'))
    .orderBy('m.access_level', 'desc')
    .orderBy('n.traversal_ids', 'desc')
    .executeTakeFirst()
}

/**
 * Whether any Owner besides one membership remains among the given groups' members (bots do not count,
 * blocked users do): GitLab's `member_owners_excluding_project_bots` without the member in question.
 */
export async function hasOtherOwner(db: Db, groupIds: number[], except: { groupId: number; userId: number }, today: string) {
  const row = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.id')
    .where('m.namespace_id', 'in', groupIds)
    .where('m.access_level', '=', 50)
    .where('u.bot', '=', 0)
    .where(isCurrent(today, 'm'))
    .where((eb) => eb.not(eb.and([eb('m.namespace_id', '=', except.groupId), eb('m.user_id', '=', except.userId)])))
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** Removes a user's direct memberships of the groups below a group and of every project in the group or below it. */
/** The direct memberships of a project or group that have not expired, oldest first. */
export function findCurrentMemberRows(db: Db, source: SourceRef, today: string) {
  return db
    .selectFrom('members')
    .selectAll()
    .where(sourceColumn(source), '=', source.id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
    .orderBy('id')
    .execute()
}

/** A user's memberships of the subgroups below a group and of their projects (the group's own excepted): projects first. */
export function findMembershipsBelow(db: Db, group: { id: number; traversal_ids: string }, userId: number) {
  const below = db
    .selectFrom('namespaces')
    .select('id')
    .where(sql<SqlBool>`traversal_ids like ${group.traversal_ids + '%'}`)
  return db
    .selectFrom('members')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.or([
        eb.and([eb('namespace_id', 'in', below), eb('namespace_id', '<>', group.id)]),
        eb('project_id', 'in', db.selectFrom('projects').select('id').where('namespace_id', 'in', below)),
      ]),
    )
    .orderBy(sql`case when project_id is null then 1 else 0 end`)
    .orderBy('id')
    .execute()
}

export async function deleteMemberRows(db: Db, ids: number[]) {
  if (ids.length > 0) await db.deleteFrom('members').where('id', 'in', ids).execute()
}

/** Each user's highest current role anywhere (GitLab's `highest_role`, which decides whether a user takes a seat). */
export async function findHighestRoles(db: Db, userIds: number[], today: string): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('members as m')
    .select(['m.user_id', sql<number>`max(m.access_level)`.as('level')])
    .where('m.user_id', 'in', [...new Set(userIds)])
    .where(isCurrent(today, 'm'))
    .groupBy('m.user_id')
    .execute()
  return new Map(rows.map((r) => [r.user_id, Number(r.level)]))
}

/** Users by username, compared case-insensitively. */
export async function findUsersByUsernames(db: Db, usernames: string[]): Promise<UserRow[]> {
  if (usernames.length === 0) return []
  return db
    .selectFrom('users')
    .selectAll()
    .where(
      sql`lower(username)`,
      'in',
      usernames.map((u) => u.toLowerCase()),
    )
    .orderBy('id')
    .execute()
}

/** Users by primary e-mail, compared case-insensitively. */
export async function findUsersByEmails(db: Db, emails: string[]): Promise<UserRow[]> {
  if (emails.length === 0) return []
  return db
    .selectFrom('users')
    .selectAll()
    .where(
      sql`lower(email)`,
      'in',
      emails.map((e) => e.toLowerCase()),
    )
    .orderBy('id')
    .execute()
}

/** Makes a user Owner of a group or project, replacing any direct membership they had there (one row per user and source). */
export async function replaceWithOwnerMember(db: Db, source: SourceRef, userId: number, createdById: number | null, at: string) {
  await db.deleteFrom('members').where(sourceColumn(source), '=', source.id).where('user_id', '=', userId).execute()
  return insertMember(db, {
    user_id: userId,
    namespace_id: source.kind === 'group' ? source.id : null,
    project_id: source.kind === 'project' ? source.id : null,
    access_level: 50,
    expires_at: null,
    created_by_id: createdById,
    created_at: at,
    updated_at: at,
  })
}

/** The bot users who are direct members of a source, with their roles (GL `resource.bots`). */
export function selectBotMembers(db: Db, source: SourceRef) {
  return db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.access_level'])
    .where(`m.${sourceColumn(source)}`, '=', source.id)
    .where('u.bot', '=', 1)
    .execute()
}
