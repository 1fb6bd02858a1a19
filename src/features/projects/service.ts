import { sql, type SqlBool } from 'kysely'
import { AccessLevel, canRead, FeatureAccess, meets, visibilityLevel, visibilityName, Visibility, type Access } from '../../core/access.js'
import { isAdmin, type Caller, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { BadRequest, Forbidden, Invalid, NotAllowed, NotFound, PreconditionFailed, RefusedWithErrors, Rejected } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import { COUNT_LIMIT, fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { NamespaceRow, NewProjectRow, ProjectRow, ProjectUpdate, UserRow } from '../../db/schema.js'
import {
  authorizeProject,
  canAdminProject,
  canChangeRepositoryStorage,
  canCreateProjectsInGroup,
  canReadNamespaceViaMembership,
  canTransferProjectsInto,
  featureAvailableCondition,
  findNamespaceById,
  findNamespacesByIds,
  findProjectById,
  findProjectsByIds,
  groupAccess,
  type LoadedProject,
  type ProjectAccess,
  projectAccessFrom,
  projectsWithRoleCondition,
  visibleProjectsCondition,
} from '../access/index.js'
import { recordEvent } from '../event-log/index.js'
import { requestProjectStorageMove } from '../storage-moves/index.js'
import { replaceWithOwnerMember } from '../members/index.js'
import { scheduleProjectDeletion } from './deletion.js'
import {
  deleteRedirectsFrom,
  findNamespaceByFullPath,
  findPersonalNamespace,
  isFullPathTaken,
  parseSearch,
  trigramSimilarity,
} from '../namespaces/index.js'
import { findUsersByIds } from '../users/index.js'
import {
  commitFirstFile,
  createRepository,
  pickRepositoryStorage,
  readmeContent,
  GitError,
  removeRepository,
  storageNames,
} from '../repositories/index.js'
import type { CreateInput, ProjectInput } from './attributes.js'
import { DEFAULT_BRANCH, defaultBranchOf, webUrlOf, type Permissions, type ProjectView } from './present.js'
import type { ProjectOrder } from './schemas.js'
import {
  countForks,
  countForksOfProject,
  countPersonalProjects,
  deleteStar,
  fetchProjects,
  fetchSearchTexts,
  findGroupMembershipsOfUser,
  findProjectMembershipsOfUser,
  findStar,
  findUserRowById,
  hasProjectNamedLike,
  insertProject,
  insertProjectRedirect,
  insertStar,
  isNameTakenInNamespace,
  orderProjects,
  selectProjects,
  selectStarrers,
  selectTeamUsers,
  updateProjectRow,
  type OrderColumn,
  type ProjectCondition,
  type ProjectFilters,
} from './store.js'
import { addError, hasProjectPathFormat, parameterize, projectValidationErrors, type ValidationErrors } from './validation.js'

/** GitLab's GroupDetail embeds at most this many projects (GL GroupProjectsFinder limit). */
export const GROUP_DETAIL_PROJECTS_LIMIT = 100

function hasErrors(errors: ValidationErrors): boolean {
  return Object.keys(errors).length > 0
}

// ---------------------------------------------------------------------------------------------
// Views: what entities show besides the row, loaded for a whole page in a fixed number of queries

interface Memberships {
  groups: { namespace_id: number | null; access_level: number; traversal_ids: string }[]
  projects: Map<number, number>
}

async function loadMemberships(ctx: Context, projectIds: number[]): Promise<Memberships | null> {
  const user = ctx.caller.user
  if (!user) return null
  const [groups, projects] = await Promise.all([
    findGroupMembershipsOfUser(ctx.db, user.id, isoDate(ctx.now())),
    findProjectMembershipsOfUser(ctx.db, user.id, projectIds, isoDate(ctx.now())),
  ])
  return { groups, projects: new Map(projects.map((m) => [Number(m.project_id), m.access_level])) }
}

/** The caller's access to one project from memberships loaded for a page, as access.projectAccess computes it. */
function accessFrom(ctx: Context, project: ProjectRow, namespace: NamespaceRow, memberships: Memberships | null): ProjectAccess {
  let projectLevel: number | null = null
  let groupLevel: number | null = null
  if (memberships) {
    projectLevel = memberships.projects.get(project.id) ?? null
    for (const m of memberships.groups) {
      if (namespace.traversal_ids.startsWith(m.traversal_ids)) groupLevel = Math.max(groupLevel ?? 0, m.access_level)
    }
  }
  return projectAccessFrom(ctx, project, namespace, { projectLevel, groupLevel })
}

/** The caller's direct memberships in a list (GL ProjectWithAccess preloads the project's and its group's own members). */
function listPermissionsOf(project: ProjectRow, namespace: NamespaceRow, memberships: Memberships | null): Permissions {
  if (!memberships) return { projectLevel: null, groupLevel: null }
  const direct = memberships.groups.find((m) => m.namespace_id === namespace.id)
  return { projectLevel: memberships.projects.get(project.id) ?? null, groupLevel: direct ? direct.access_level : null }
}

export interface ProjectViews {
  views: ProjectView[]
  permissions: Map<number, Permissions>
}

/** Views of a page of projects: namespaces, owners, fork counts, fork sources and the caller's roles, in six queries. */
export async function buildViews(ctx: Context, projects: readonly ProjectRow[]): Promise<ProjectViews> {
  if (projects.length === 0) return { views: [], permissions: new Map() }
  const sourceIds = projects.map((p) => p.forked_from_project_id).filter((id): id is number => id !== null)
  const sources = await findProjectsByIds(ctx.db, sourceIds)
  const all = [...projects, ...sources]
  const ids = all.map((p) => p.id)
  const [namespaces, forks, memberships] = await Promise.all([
    findNamespacesByIds(
      ctx.db,
      all.map((p) => p.namespace_id),
    ),
    countForks(ctx.db, ids),
    loadMemberships(ctx, ids),
  ])
  const namespaceById = new Map(namespaces.map((n) => [n.id, n]))
  const ownerIds = namespaces.filter((n) => n.kind === 'user' && n.owner_id !== null).map((n) => n.owner_id as number)
  const owners = new Map((await findUsersByIds(ctx.db, ownerIds)).map((u) => [u.id, u]))
  const sourceById = new Map(sources.map((s) => [s.id, s]))
  const viewOf = (project: ProjectRow, withSource: boolean): ProjectView => {
    const namespace = namespaceById.get(project.namespace_id) as NamespaceRow
    const access = accessFrom(ctx, project, namespace, memberships)
    let forkedFrom: ProjectView | null = null
    if (withSource && project.forked_from_project_id !== null) {
      const source = sourceById.get(project.forked_from_project_id)
      const sourceView = source && !source.pending_delete ? viewOf(source, false) : null
      forkedFrom = sourceView && canRead(sourceView.access) ? sourceView : null
    }
    return {
      project,
      namespace,
      access,
      owner: namespace.kind === 'user' && namespace.owner_id !== null ? (owners.get(namespace.owner_id) ?? null) : null,
      forksCount: forks.get(project.id) ?? 0,
      forkedFrom,
    }
  }
  const views = projects.map((p) => viewOf(p, true))
  const permissions = new Map(views.map((v) => [v.project.id, listPermissionsOf(v.project, v.namespace, memberships)]))
  return { views, permissions }
}

/** The view of one project already found with the caller's access (GET /projects/:id and single-project answers). */
export async function viewOfLoaded(ctx: Context, loaded: LoadedProject): Promise<ProjectView> {
  const { project, namespace, access } = loaded
  const [owner, forks, source] = await Promise.all([
    namespace.kind === 'user' && namespace.owner_id !== null ? findUserRowById(ctx.db, namespace.owner_id) : Promise.resolve([]),
    countForksOfProject(ctx.db, project.id),
    project.forked_from_project_id !== null ? findProjectById(ctx.db, project.forked_from_project_id) : Promise.resolve([]),
  ])
  let forkedFrom: ProjectView | null = null
  if (source[0] && !source[0].pending_delete) {
    const { views } = await buildViews(ctx, [{ ...source[0], forked_from_project_id: null }])
    forkedFrom = canRead(views[0].access) ? views[0] : null
  }
  return { project, namespace, access, owner: owner[0] ?? null, forksCount: Number(forks[0]?.count ?? 0), forkedFrom }
}

/** The view of a project just changed by the caller. */
async function reload(ctx: Context, project: ProjectRow): Promise<ProjectView> {
  const { views } = await buildViews(ctx, [project])
  return views[0]
}

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Creating (GL Projects::CreateService)

/** The caller acting as another user, as POST /projects/user/:user_id creates for them. */
function actingAs(ctx: Context, user: User): Context {
  const caller: Caller = { user, credential: ctx.caller.credential, sudoFrom: ctx.caller.sudoFrom }
  return { ...ctx, caller }
}

/** GL `create_projects` on a namespace: its owner or an administrator for a personal one; the group's creation level otherwise. */
export async function canCreateProjectIn(ctx: Context, namespace: NamespaceRow): Promise<boolean> {
  if (!ctx.caller.user) return false
  if (namespace.kind === 'user') return isAdmin(ctx.caller) || namespace.owner_id === ctx.caller.user.id
  return canCreateProjectsInGroup(await groupAccess(ctx, namespace), namespace)
}

/** GL `check_personal_projects_limit`, worded as GitLab words it. */
async function projectLimitError(ctx: Context, creator: User): Promise<string | null> {
  const personal = await findPersonalNamespace(ctx.db, creator.id)
  const count = personal ? await countPersonalProjects(ctx.db, personal.id) : 0
  if (creator.projects_limit - count > 0) return null
  if (creator.projects_limit === 0) return 'Personal project creation is not allowed. Please contact your administrator with questions'
  return `Your project limit is ${creator.projects_limit} projects! Please contact your administrator to increase it`
}

function visibilityCappedBy(namespace: NamespaceRow, level: number): number {
  return namespace.kind === 'group' ? Math.min(level, namespace.visibility_level) : level
}

/** Errors GitLab adds on save besides the attribute rules: taken names and paths, storages, the group's visibility. */
async function saveErrors(
  db: Db,
  errors: ValidationErrors,
  row: { name: string; path: string; visibility_level: number; repository_storage?: string },
  namespace: NamespaceRow,
  changed: ReadonlySet<string>,
  exceptId: number | null,
  source: ProjectRow | null,
  storages: readonly string[],
) {
  if (changed.has('name') && !errors.name?.length && (await isNameTakenInNamespace(db, namespace.id, row.name, exceptId))) {
    addError(errors, 'name', 'has already been taken')
  }
  const fullPath = `${namespace.full_path}/${row.path}`
  if (
    changed.has('path') &&
    !errors.path?.length &&
    (await isFullPathTaken(db, fullPath, exceptId === null ? {} : { projectId: exceptId }))
  ) {
    addError(errors, 'path', 'has already been taken')
  }
  if (changed.has('visibility_level')) {
    const level = visibilityName(row.visibility_level)
    if (namespace.kind === 'group' && row.visibility_level > namespace.visibility_level) {
      addError(errors, 'visibility_level', `${level} is not allowed in a ${visibilityName(namespace.visibility_level)} group.`)
    }
    if (source && row.visibility_level > source.visibility_level) {
      addError(errors, 'visibility_level', `${level} is not allowed since the fork source project has lower visibility.`)
    }
  }
  if (changed.has('repository_storage') && row.repository_storage !== undefined && !storages.includes(row.repository_storage)) {
    addError(errors, 'repository_storage', 'is not included in the list')
  }
}

/** What a fork adds to a creation (GL ForkService#new_fork_params): its source, and the job that copies the repository. */
export interface ForkCreation {
  sourceId: number
  /** The fork's storage; the weighted pick when absent. */
  storage?: string
  /** The branch HEAD will name once the repository is copied. */
  defaultBranch: string
  objectFormat: string
  /** Runs in the creating transaction once the row has its id (enqueues the copy with the project). */
  schedule: (trx: Db, project: ProjectRow) => Promise<void>
}

/**
 * POST /projects, and POST /projects/user/:user_id with `forUser`. With `fork` the project names its source, starts with
 * import_status "scheduled" and no repository (the scheduled job makes it), and every refusal is a validation error.
 */
export async function createProject(
  ctx: Context,
  input: CreateInput,
  forUser: User | null = null,
  fork: ForkCreation | null = null,
): Promise<ProjectView> {
  const caller = ctx.caller.user
  if (!caller) throw new Forbidden()
  const acting = forUser ? actingAs(ctx, forUser) : ctx
  const creator = acting.caller.user as User
  if (input.templateName !== undefined) {
    throw new Invalid({ template_name: [`'${input.templateName}' is unknown or invalid`] })
  }
  // Only the git import source could apply, and no import source is enabled (GL `import_source_disabled`).
  if (input.importUrl !== undefined && input.importUrl !== '') throw new Forbidden()

  let name = input.name ?? ''
  let path = input.path ?? ''
  // GL `set_project_name_from_path`: either one is derived from the other.
  if (name === '' && path !== '') name = path
  else if (path === '' && name !== '') path = hasProjectPathFormat(name) ? name : parameterize(name)

  const namespace =
    input.namespaceId !== undefined
      ? ((await findNamespaceById(acting.db, input.namespaceId))[0] ?? null)
      : ((await findPersonalNamespace(acting.db, creator.id)) ?? null)
  if (!namespace) throw new Invalid({ namespace: ["can't be blank"] })
  if (namespace.kind === 'user') {
    const limit = await projectLimitError(acting, creator)
    if (limit) {
      if (forUser || fork) throw new Invalid({ limit_reached: [limit] })
      throw new RefusedWithErrors([limit])
    }
  }
  if (!(await canCreateProjectIn(acting, namespace))) throw new Invalid({ namespace: ['is not valid'] })

  const requested = visibilityLevel(input.visibility ?? acting.settings.default_project_visibility)
  // A project cannot be more visible than its group: GitLab lowers it on create (GL CreateService).
  const level = visibilityCappedBy(namespace, requested)
  const at = acting.now().toISOString()
  const readme = input.initializeWithReadme === true
  const settings: ProjectUpdate = { ...input.settings }
  if (input.emailsEnabled !== undefined) settings.emails_enabled = input.emailsEnabled ? 1 : 0
  if (input.maxArtifactsSize !== undefined && isAdmin(acting.caller)) settings.max_artifacts_size = input.maxArtifactsSize
  const row: NewProjectRow = {
    // GL ProjectFeature defaults: pages follow the project's visibility, security and compliance start private.
    pages_access_level: level === Visibility.PUBLIC ? FeatureAccess.ENABLED : FeatureAccess.PRIVATE,
    security_and_compliance_access_level: FeatureAccess.PRIVATE,
    ...(settings as Partial<NewProjectRow>),
    namespace_id: namespace.id,
    name,
    path,
    full_path: `${namespace.full_path}/${path}`,
    full_name: `${namespace.full_name} / ${name}`,
    description: input.description ?? null,
    visibility_level: level,
    creator_id: creator.id,
    // The branch HEAD names, empty repository or not (GL CreateService#default_branch).
    default_branch: fork ? fork.defaultBranch : input.defaultBranch || (await groupDefaultBranch(acting.db, namespace)) || DEFAULT_BRANCH,
    empty_repo: readme ? 0 : 1,
    readme_path: readme ? 'README.md' : null,
    topics: JSON.stringify(input.topics ?? []),
    repository_object_format: fork ? fork.objectFormat : (input.repositoryObjectFormat ?? 'sha1'),
    forked_from_project_id: fork ? fork.sourceId : null,
    import_status: fork ? 'scheduled' : 'none',
    last_activity_at: at,
    created_at: at,
    updated_at: at,
  }
  const chosenStorage = input.repositoryStorage !== undefined && canChangeRepositoryStorage(acting.caller)
  row.repository_storage =
    fork?.storage ?? (chosenStorage ? input.repositoryStorage : pickRepositoryStorage(acting.config, acting.settings))
  const changed = new Set(['name', 'path', 'visibility_level', ...Object.keys(settings), 'description'])
  if (chosenStorage) changed.add('repository_storage')
  const errors = projectValidationErrors(candidateOf(row), changed)
  await saveErrors(acting.db, errors, { ...row, visibility_level: level }, namespace, changed, null, null, storageNames(acting.config))
  if (hasErrors(errors)) throw new Invalid(errors)

  let project: ProjectRow
  let madeRepository: { storage: string; id: number } | null = null
  try {
    project = await acting.db.transaction().execute(async (trx) => {
      const inserted = await insertProject(trx, row)
      // The repository is made inside the transaction once the row has its id, so a failure rolls the project back
      // (GL CreateService#save_project_and_import_data: 'Failed to create repository'); the catch removes the directory.
      if (fork) {
        await fork.schedule(trx, inserted)
      } else {
        madeRepository = { storage: inserted.repository_storage, id: inserted.id }
        await makeRepository(acting, inserted, readme ? { description: input.description ?? null, author: creator } : null)
      }
      // The new project wins its path: redirects from it go (GL Route `delete_conflicting_redirects`).
      await deleteRedirectsFrom(trx, [inserted.full_path])
      if (namespace.kind === 'user' && namespace.owner_id !== null) {
        await replaceWithOwnerMember(trx, { kind: 'project', id: inserted.id }, namespace.owner_id, caller.id, at)
      }
      // GL EventCreateService#create_project: "created", by the user the project is created for, without a target.
      await recordEvent(trx, { projectId: inserted.id, authorId: creator.id, action: 'created', target: null, at: new Date(at) })
      return inserted
    })
  } catch (error) {
    if (madeRepository !== null) {
      const made: { storage: string; id: number } = madeRepository
      await removeRepository(acting.config, made.storage, made.id).catch(() => {})
      if (error instanceof GitError || isFileSystemError(error)) {
        acting.log.error({ err: error, projectId: made.id }, 'could not create the repository of a new project')
        throw new Invalid({ base: ['Failed to create repository'] })
      }
    }
    // A concurrent create took the path first.
    if (await isFullPathTaken(acting.db, row.full_path)) throw new Invalid({ path: ['has already been taken'] })
    throw error
  }
  return reload(ctx, project)
}

function isFileSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string'
}

/** A group's default branch name, else its root group's (GL `default_branch_from_group_preferences`). */
async function groupDefaultBranch(db: Db, namespace: NamespaceRow): Promise<string | null> {
  if (namespace.kind !== 'group') return null
  if (namespace.default_branch) return namespace.default_branch
  const rootId = Number(namespace.traversal_ids.split('/')[0])
  if (rootId === namespace.id) return null
  return (await findNamespaceById(db, rootId))[0]?.default_branch || null
}

/** The new project's bare repository, with GitLab's first commit of a README when asked (GL CreateService#create_readme). */
async function makeRepository(ctx: Context, project: ProjectRow, readme: { description: string | null; author: User } | null) {
  const branch = project.default_branch ?? DEFAULT_BRANCH
  const directory = await createRepository(ctx.config, {
    storage: project.repository_storage,
    projectId: project.id,
    defaultBranch: branch,
    objectFormat: project.repository_object_format === 'sha256' ? 'sha256' : 'sha1',
  })
  if (!readme) return
  const webUrl = webUrlOf(project, ctx.config.externalUrl)
  await commitFirstFile({
    directory,
    branch,
    path: 'README.md',
    content: readmeContent({
      name: project.name,
      description: readme.description,
      httpUrl: `${webUrl}.git`,
      integrationsUrl: `${webUrl}/-/settings/integrations`,
      branch,
    }),
    message: 'Initial commit',
    author: { name: readme.author.name, email: readme.author.commit_email || readme.author.email },
    at: new Date(project.created_at),
  })
}

function candidateOf(row: Partial<ProjectRow> & { name: string; path: string }) {
  return {
    name: row.name,
    path: row.path,
    description: row.description ?? null,
    ci_config_path: row.ci_config_path ?? null,
    build_timeout: row.build_timeout ?? 3600,
    ci_default_git_depth: row.ci_default_git_depth ?? 20,
    suggestion_commit_message: row.suggestion_commit_message ?? null,
    merge_commit_template: row.merge_commit_template ?? null,
    squash_commit_template: row.squash_commit_template ?? null,
    issue_branch_template: row.issue_branch_template ?? null,
    max_artifacts_size: row.max_artifacts_size ?? null,
  }
}

// ---------------------------------------------------------------------------------------------
// Changing (GL Projects::UpdateService, API PUT /projects/:id)

/** The project's new full path and name follow its namespace's; the old path redirects here (spec rule 6). */
async function movePaths(db: Db, project: ProjectRow, namespace: NamespaceRow, changes: ProjectUpdate, at: string) {
  const path = changes.path ?? project.path
  const name = changes.name ?? project.name
  changes.full_path = `${namespace.full_path}/${path}`
  changes.full_name = `${namespace.full_name} / ${name}`
  if (changes.full_path !== project.full_path) {
    await deleteRedirectsFrom(db, [changes.full_path])
    if (changes.full_path.toLowerCase() !== project.full_path.toLowerCase()) {
      await deleteRedirectsFrom(db, [project.full_path])
      await insertProjectRedirect(db, project.id, project.full_path, at)
    }
  }
}

export async function updateProject(ctx: Context, loaded: LoadedProject, input: ProjectInput): Promise<ProjectView> {
  const { project, namespace, access } = loaded
  authorizeProject(access, 'admin_project')
  if (input.visibility !== undefined) authorizeProject(access, 'change_visibility_level')
  if (input.ciDeletePipelinesInSeconds !== undefined) authorizeProject(access, 'remove_project')
  const changes: ProjectUpdate = { ...input.settings }
  // Roles that may not change these see them dropped, not refused (GL UpdateService `remove_unallowed_params`).
  if (input.emailsEnabled !== undefined && meets(access, { level: AccessLevel.OWNER })) changes.emails_enabled = input.emailsEnabled ? 1 : 0
  if (input.maxArtifactsSize !== undefined && isAdmin(ctx.caller)) changes.max_artifacts_size = input.maxArtifactsSize
  if (input.ciDeletePipelinesInSeconds !== undefined) changes.ci_delete_pipelines_in_seconds = input.ciDeletePipelinesInSeconds
  if (input.repositoryStorage !== undefined && canChangeRepositoryStorage(ctx.caller)) changes.repository_storage = input.repositoryStorage
  if (input.name !== undefined) changes.name = input.name
  if (input.path !== undefined) changes.path = input.path
  if (input.description !== undefined) changes.description = input.description
  if (input.visibility !== undefined) changes.visibility_level = visibilityLevel(input.visibility)
  if (input.topics !== undefined) changes.topics = JSON.stringify(input.topics)
  if (
    changes.ci_pipeline_variables_minimum_override_role === 'owner' &&
    project.ci_pipeline_variables_minimum_override_role !== 'owner' &&
    !meets(access, { level: AccessLevel.OWNER })
  ) {
    throw new Rejected('Changing the ci_pipeline_variables_minimum_override_role to the owner role is not allowed')
  }
  // The repository has only its default branch, so no other can become the default (GL `change_head`).
  if (input.defaultBranch !== undefined && input.defaultBranch !== defaultBranchOf(project)) {
    throw new Invalid({ base: [`Could not change HEAD: branch '${input.defaultBranch}' does not exist`] })
  }
  // Only what differs from the stored value counts as changed (ActiveRecord dirty tracking).
  for (const key of Object.keys(changes) as (keyof ProjectUpdate)[]) {
    if (changes[key] === project[key as keyof ProjectRow]) delete changes[key]
  }
  const changed = new Set(Object.keys(changes))
  const merged = { ...project, ...changes } as ProjectRow
  const errors = projectValidationErrors(candidateOf(merged), changed)
  const source =
    project.forked_from_project_id !== null ? ((await findProjectById(ctx.db, project.forked_from_project_id))[0] ?? null) : null
  await saveErrors(ctx.db, errors, merged, namespace, changed, project.id, source, storageNames(ctx.config))
  if (hasErrors(errors)) throw new Invalid(errors)
  // A repository changes storage through a scheduled storage move (GL UpdateService `changing_repository_storage?`);
  // only a project without one has the column changed here.
  if (
    changes.repository_storage !== undefined &&
    (await requestProjectStorageMove(ctx, project, changes.repository_storage)) !== 'no repository'
  ) {
    delete changes.repository_storage
    changed.delete('repository_storage')
  }
  if (changed.size === 0) return viewOfLoaded(ctx, loaded)
  const at = ctx.now().toISOString()
  const updated = await ctx.db.transaction().execute(async (trx) => {
    if (changed.has('path') || changed.has('name')) await movePaths(trx, project, namespace, changes, at)
    return updateProjectRow(trx, project.id, { ...changes, updated_at: at })
  })
  return viewOfLoaded(ctx, { ...loaded, project: updated })
}

/** GL TransferService's refusals, as the API words them: 400 "Failed to transfer project {:new_namespace=>[…]}". */
function transferFailed(message: string): Rejected {
  return new Rejected(`Failed to transfer project {:new_namespace=>[${JSON.stringify(message)}]}`)
}

/** The target of a transfer: by id or full path, and only one the caller belongs to (GL `find_namespace!`). */
async function findTransferTarget(ctx: Context, idOrPath: string): Promise<{ namespace: NamespaceRow; access: Access | null }> {
  let namespace: NamespaceRow | undefined
  if (/^-?\d+$/.test(idOrPath)) {
    const id = Number(idOrPath)
    namespace = Number.isSafeInteger(id) ? (await findNamespaceById(ctx.db, id))[0] : undefined
  } else {
    namespace = await findNamespaceByFullPath(ctx.db, idOrPath)
  }
  if (!namespace) throw new NotFound('Namespace')
  const access = namespace.kind === 'group' ? await groupAccess(ctx, namespace) : null
  if (!canReadNamespaceViaMembership(ctx.caller, access, namespace)) throw new NotFound('Namespace')
  return { namespace, access }
}

/** PUT /projects/:id/transfer (GL Projects::TransferService). */
export async function transferProject(ctx: Context, loaded: LoadedProject, target: string): Promise<ProjectView> {
  const { project } = loaded
  authorizeProject(loaded.access, 'change_namespace')
  const { namespace, access } = await findTransferTarget(ctx, target)
  if (namespace.id === project.namespace_id) throw transferFailed('Project is already in this namespace.')
  if (!canTransferProjectsInto(ctx.caller, access, namespace)) {
    throw transferFailed("You don't have permission to transfer projects into that namespace.")
  }
  const fullPath = `${namespace.full_path}/${project.path}`
  if (
    (await hasProjectNamedLike(ctx.db, namespace.id, project.path, project.name)) ||
    (await isFullPathTaken(ctx.db, fullPath, { projectId: project.id }))
  ) {
    throw transferFailed('Project with same name or path in target namespace already exists')
  }
  const at = ctx.now().toISOString()
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const changes: ProjectUpdate = {
      namespace_id: namespace.id,
      visibility_level: visibilityCappedBy(namespace, project.visibility_level),
      updated_at: at,
    }
    await movePaths(trx, project, namespace, changes, at)
    const row = await updateProjectRow(trx, project.id, changes)
    // A project moved into a personal namespace is owned by its owner (GL `ensure_personal_project_owner_membership`).
    if (namespace.kind === 'user' && namespace.owner_id !== null) {
      await replaceWithOwnerMember(trx, { kind: 'project', id: project.id }, namespace.owner_id, ctx.caller.user?.id ?? null, at)
    }
    return row
  })
  return reload(ctx, updated)
}

/**
 * DELETE /projects/:id: marks the project for deletion and schedules the job that removes it (GL
 * `destroy_conditionally!` then ProjectDestroyWorker). `unmodifiedSince` is the client's If-Unmodified-Since.
 */
export async function deleteProject(ctx: Context, loaded: LoadedProject, unmodifiedSince: Date | null): Promise<void> {
  authorizeProject(loaded.access, 'remove_project')
  if (unmodifiedSince && Date.parse(loaded.project.updated_at) > unmodifiedSince.getTime()) throw new PreconditionFailed()
  await ctx.db.transaction().execute((trx) => scheduleProjectDeletion(trx, loaded.project.id, ctx.now()))
}

/** POST /projects/:id/archive and /unarchive: Owner (GL `archive_project`); archiving twice changes nothing. */
export async function setArchived(ctx: Context, loaded: LoadedProject, archived: boolean): Promise<ProjectView> {
  authorizeProject(loaded.access, 'archive_project')
  const value = archived ? 1 : 0
  if (loaded.project.archived === value) return viewOfLoaded(ctx, loaded)
  const updated = await updateProjectRow(ctx.db, loaded.project.id, { archived: value, updated_at: ctx.now().toISOString() })
  return viewOfLoaded(ctx, { ...loaded, project: updated })
}

/** POST /projects/:id/star: null when the caller had starred it already (304). */
export async function starProject(ctx: Context, loaded: LoadedProject): Promise<ProjectView | null> {
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  const starred = await ctx.db.transaction().execute((trx) => insertStar(trx, user.id, loaded.project.id, ctx.now().toISOString()))
  if (!starred) return null
  return viewOfLoaded(ctx, { ...loaded, project: (await findProjectById(ctx.db, loaded.project.id))[0] })
}

/** POST /projects/:id/unstar: null when the caller had not starred it (304). */
export async function unstarProject(ctx: Context, loaded: LoadedProject): Promise<ProjectView | null> {
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  if ((await findStar(ctx.db, user.id, loaded.project.id)).length === 0) return null
  const removed = await ctx.db.transaction().execute((trx) => deleteStar(trx, user.id, loaded.project.id))
  if (!removed) return null
  return viewOfLoaded(ctx, { ...loaded, project: (await findProjectById(ctx.db, loaded.project.id))[0] })
}

export interface Starrer {
  user: UserRow
  starredSince: string
}

/** GET /projects/:id/starrers (GL UsersStarProjectsFinder): private profiles only for administrators and themselves. */
export async function listStarrers(
  ctx: Context,
  loaded: LoadedProject,
  input: { search?: string; page: number; perPage: number },
): Promise<OffsetPage<Starrer>> {
  const query = selectStarrers(ctx.db, {
    projectId: loaded.project.id,
    search: input.search,
    viewerId: ctx.caller.user?.id ?? null,
    viewerIsAdmin: isAdmin(ctx.caller),
  })
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  return {
    ...page,
    rows: page.rows.map((row) => {
      const { starred_since: starredSince, ...user } = row
      return { user: user as UserRow, starredSince }
    }),
  }
}

/** GET /projects/:id/users: everyone with a role on the project, directly or through its groups (GL `project.team.users`). */
export function listProjectUsers(
  ctx: Context,
  loaded: LoadedProject,
  input: { search?: string; skipUsers?: number[]; page: number; perPage: number },
): Promise<OffsetPage<UserRow>> {
  const query = selectTeamUsers(ctx.db, {
    projectId: loaded.project.id,
    traversalIds: loaded.namespace.kind === 'group' ? loaded.namespace.traversal_ids : '',
    search: input.search,
    skipUsers: input.skipUsers,
    today: isoDate(ctx.now()),
    minLevel: AccessLevel.GUEST,
  })
  return fetchOffsetPage(ctx.db, query, input.page, input.perPage)
}

export { canAdminProject }
