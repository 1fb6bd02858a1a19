import { sql, type SqlBool } from 'kysely'
import { AccessLevel, visibilityLevel } from '../../core/access.js'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { BadRequest, NotAllowed } from '../../core/errors.js'
import { COUNT_LIMIT, fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  canChangeRepositoryStorage,
  featureAvailableCondition,
  findProjectsByIds,
  projectsWithRoleCondition,
  visibleProjectsCondition,
} from '../access/index.js'
import { findPersonalNamespace, parseSearch, trigramSimilarity } from '../namespaces/index.js'
import type { ProjectOrder } from './schemas.js'
import {
  fetchProjects,
  fetchSearchTexts,
  orderProjects,
  selectProjects,
  type OrderColumn,
  type ProjectCondition,
  type ProjectFilters,
} from './store.js'
import { buildViews, type ProjectViews } from './views.js'

/** GitLab's GroupDetail embeds at most this many projects (GL GroupProjectsFinder limit). */
export const GROUP_DETAIL_PROJECTS_LIMIT = 100

// Lists (GL ProjectsFinder, PersonalProjectsFinder, GroupProjectsFinder)

export type ProjectListScope =
  | { kind: 'all' }
  | { kind: 'user'; user: User }
  | { kind: 'group'; group: NamespaceRow; includeSubgroups: boolean; includeAncestors: boolean }
  /** The direct forks of a project (GL ForkProjectsFinder: ProjectsFinder over `project.forks`). */
  | { kind: 'forks'; projectId: number }

export type ListPagination = { kind: 'offset'; page: number; perPage: number } | { kind: 'keyset'; perPage: number }

export interface ListProjectsInput {
  scope: ProjectListScope
  archived?: boolean
  visibility?: 'private' | 'internal' | 'public'
  search?: string
  searchNamespaces?: boolean
  owned: boolean
  starred: boolean
  imported: boolean
  membership: boolean
  withIssuesEnabled: boolean
  withMergeRequestsEnabled: boolean
  withProgrammingLanguage?: string
  minAccessLevel?: number
  idAfter?: number
  idBefore?: number
  lastActivityAfter?: string
  lastActivityBefore?: string
  repositoryStorage?: string
  topics?: string[]
  topicId?: number
  updatedAfter?: string
  updatedBefore?: string
  orderBy: ProjectOrder
  sort: 'asc' | 'desc'
  pagination: ListPagination
  /** GET /projects pairs the updated_at filters with the updated_at order (GL `validate_updated_at_order_and_filter!`). */
  pairUpdatedAt?: boolean
}

export interface ProjectListResult extends ProjectViews {
  offset: OffsetPage<ProjectRow> | null
  /** For keyset pages: the filter that continues after this page, when it was full. */
  next: { param: 'id_after' | 'id_before'; value: number } | null
}

const none: ProjectCondition = () => sql<SqlBool>`1 = 0`

function ancestorIdsOf(group: NamespaceRow): number[] {
  return group.traversal_ids
    .split('/')
    .filter((s) => s !== '')
    .map(Number)
    .filter((id) => id !== group.id)
}

async function filtersOf(ctx: Context, input: ListProjectsInput, similarity: boolean): Promise<ProjectFilters> {
  const caller = ctx.caller
  const conditions: ProjectCondition[] = []
  const filters: ProjectFilters = { conditions }
  // Minimal Access grants no role on projects (GL project authorizations start at Guest).
  const role =
    (level: number): ProjectCondition =>
    (eb) =>
      projectsWithRoleCondition(ctx, eb, Math.max(level, AccessLevel.GUEST))
  const visible: ProjectCondition = (eb) => visibleProjectsCondition(ctx, eb)
  const { scope } = input
  if (scope.kind === 'all' || scope.kind === 'forks') {
    if (scope.kind === 'forks') {
      const sourceId = scope.projectId
      conditions.push((eb) => eb('projects.forked_from_project_id', '=', sourceId))
    }
    if (!caller.user) conditions.push(input.owned || input.membership || input.minAccessLevel !== undefined || similarity ? none : visible)
    else if (input.owned) conditions.push(role(AccessLevel.OWNER))
    else if (input.minAccessLevel !== undefined) conditions.push(role(input.minAccessLevel))
    else if (input.membership || similarity) conditions.push(role(AccessLevel.GUEST))
    else conditions.push(visible)
  } else if (scope.kind === 'user') {
    const namespace = await findPersonalNamespace(ctx.db, scope.user.id)
    filters.namespaces = { ids: namespace ? [namespace.id] : [], subtrees: [] }
    conditions.push(visible)
    if (input.minAccessLevel !== undefined) conditions.push(role(input.minAccessLevel))
  } else {
    const { group } = scope
    filters.namespaces = {
      ids: [group.id, ...(scope.includeAncestors ? ancestorIdsOf(group) : [])],
      subtrees: scope.includeSubgroups ? [group.traversal_ids] : [],
    }
    conditions.push(visible)
    if (input.owned) conditions.push(caller.user ? role(AccessLevel.OWNER) : none)
    if (input.minAccessLevel !== undefined) conditions.push(role(input.minAccessLevel))
    if (similarity) conditions.push(role(AccessLevel.GUEST))
  }
  if (input.starred && caller.user) filters.starredBy = caller.user.id
  if (input.idAfter !== undefined) filters.idAfter = input.idAfter
  if (input.idBefore !== undefined) filters.idBefore = input.idBefore
  if (input.visibility !== undefined) filters.visibilityLevel = visibilityLevel(input.visibility)
  if (input.topics) filters.topics = input.topics.map((t) => t.trim()).filter((t) => t !== '')
  const terms = parseSearch(input.search)
  if (terms) filters.search = { terms, includeNamespace: input.searchNamespaces === true }
  // GL `archived_param`: true lists only archived projects, false only the others.
  if (input.archived !== undefined) filters.archived = input.archived
  if (input.lastActivityAfter !== undefined) filters.lastActivityAfter = input.lastActivityAfter
  if (input.lastActivityBefore !== undefined) filters.lastActivityBefore = input.lastActivityBefore
  if (input.updatedAfter !== undefined) filters.updatedAfter = input.updatedAfter
  if (input.updatedBefore !== undefined) filters.updatedBefore = input.updatedBefore
  if (input.withIssuesEnabled) conditions.push((eb) => featureAvailableCondition(ctx, eb, 'issues_access_level', AccessLevel.GUEST))
  if (input.withMergeRequestsEnabled)
    conditions.push((eb) => featureAvailableCondition(ctx, eb, 'merge_requests_access_level', AccessLevel.REPORTER))
  // Non-administrators' storage filter is dropped (GL `verify_project_filters!`).
  if (input.repositoryStorage !== undefined && canChangeRepositoryStorage(caller)) filters.repositoryStorage = input.repositoryStorage
  // Nothing is imported, no language is detected and no topic has an id yet, so these filters match nothing.
  if (input.imported || input.withProgrammingLanguage !== undefined || input.topicId !== undefined) conditions.push(none)
  return filters
}

/** The column a list orders by: `created_at` through the id, statistics (all zero) through the id (GL `reorder_projects`). */
function orderColumnOf(orderBy: ProjectOrder): OrderColumn {
  switch (orderBy) {
    case 'name':
    case 'path':
    case 'updated_at':
    case 'last_activity_at':
    case 'star_count':
      return orderBy
    default:
      return 'id'
  }
}

/** GL `sorted_by_similarity_desc`: path, name and description weighted 1, 0.7 and 0.2, then the newest. */
function rankBySimilarity(rows: { id: number; path: string; name: string; description: string | null }[], search: string): number[] {
  const score = (r: (typeof rows)[number]) =>
    trigramSimilarity(search, r.path) + 0.7 * trigramSimilarity(search, r.name) + 0.2 * trigramSimilarity(search, r.description ?? '')
  return rows
    .map((r) => ({ id: Number(r.id), score: score(r) }))
    .sort((a, b) => b.score - a.score || b.id - a.id)
    .map((r) => r.id)
}

export async function listProjects(ctx: Context, input: ListProjectsInput): Promise<ProjectListResult> {
  if (input.pairUpdatedAt && (input.updatedAfter !== undefined || input.updatedBefore !== undefined) && input.orderBy !== 'updated_at') {
    throw new BadRequest('`updated_at` filter and `updated_at` sorting must be paired')
  }
  // Ordering by similarity needs a search and a signed-in caller, and then lists only their projects (GL `support_order_by_similarity!`).
  const similarity = input.orderBy === 'similarity' && input.search !== undefined && input.search.trim() !== '' && ctx.caller.user !== null
  const query = selectProjects(ctx.db, await filtersOf(ctx, input, similarity))
  const { pagination } = input
  if (pagination.kind === 'keyset') {
    // Spec: Pagination, keyset table: projects page by id only.
    if (input.orderBy !== 'id') throw new NotAllowed('Keyset pagination is not yet available for this type of request')
    const rows = await fetchProjects(ctx.db, orderProjects(query, 'id', input.sort), pagination.perPage)
    const last = rows.length === pagination.perPage ? rows[rows.length - 1] : undefined
    return {
      ...(await buildViews(ctx, rows)),
      offset: null,
      next: last ? { param: input.sort === 'asc' ? 'id_after' : 'id_before', value: last.id } : null,
    }
  }
  let page: OffsetPage<ProjectRow>
  if (similarity) {
    const ranked = rankBySimilarity(await fetchSearchTexts(query), input.search as string)
    const start = (pagination.page - 1) * pagination.perPage
    const ids = ranked.slice(start, start + pagination.perPage)
    const byId = new Map((await findProjectsByIds(ctx.db, ids)).map((p) => [p.id, p]))
    page = {
      rows: ids.map((id) => byId.get(id)).filter((p): p is ProjectRow => p !== undefined),
      page: pagination.page,
      perPage: pagination.perPage,
      total: ranked.length > COUNT_LIMIT ? null : ranked.length,
      hasNext: ranked.length > start + pagination.perPage,
    }
  } else {
    page = await fetchOffsetPage(
      ctx.db,
      orderProjects(query, orderColumnOf(input.orderBy), input.sort),
      pagination.page,
      pagination.perPage,
    )
  }
  return { ...(await buildViews(ctx, page.rows)), offset: page, next: null }
}

/** GL GroupDetail `projects`: the group's own projects the caller may see, newest first, at most 100. */
export async function listGroupDetailProjects(ctx: Context, group: NamespaceRow): Promise<ProjectViews> {
  const query = selectProjects(ctx.db, {
    conditions: [(eb) => visibleProjectsCondition(ctx, eb)],
    namespaces: { ids: [group.id], subtrees: [] },
  })
  return buildViews(ctx, await fetchProjects(ctx.db, orderProjects(query, 'id', 'desc'), GROUP_DETAIL_PROJECTS_LIMIT))
}
