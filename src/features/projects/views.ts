import { canRead } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  findNamespacesByIds,
  findProjectById,
  findProjectsByIds,
  type LoadedProject,
  type ProjectAccess,
  projectAccessFrom,
} from '../access/index.js'
import { renderMarkdownField, type RenderedMarkdown } from '../markdown/index.js'
import { findUsersByIds } from '../users/index.js'
import { type Permissions, type ProjectView } from './present.js'
import { countForks, countForksOfProject, findGroupMembershipsOfUser, findProjectMembershipsOfUser, findUserRowById } from './store.js'

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
  const descriptions = new Map<number, RenderedMarkdown>()
  await Promise.all(
    all.map(async (project) => {
      const namespace = namespaceById.get(project.namespace_id) as NamespaceRow
      const loaded = { project, namespace, access: accessFrom(ctx, project, namespace, memberships) }
      descriptions.set(project.id, await renderMarkdownField(ctx, project.description, { project: loaded }))
    }),
  )
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
      description: descriptions.get(project.id) as RenderedMarkdown,
    }
  }
  const views = projects.map((p) => viewOf(p, true))
  const permissions = new Map(views.map((v) => [v.project.id, listPermissionsOf(v.project, v.namespace, memberships)]))
  return { views, permissions }
}

/** The view of one project already found with the caller's access (GET /projects/:id and single-project answers). */
export async function viewOfLoaded(ctx: Context, loaded: LoadedProject): Promise<ProjectView> {
  const { project, namespace, access } = loaded
  const [owner, forks, source, description] = await Promise.all([
    namespace.kind === 'user' && namespace.owner_id !== null ? findUserRowById(ctx.db, namespace.owner_id) : Promise.resolve([]),
    countForksOfProject(ctx.db, project.id),
    project.forked_from_project_id !== null ? findProjectById(ctx.db, project.forked_from_project_id) : Promise.resolve([]),
    renderMarkdownField(ctx, project.description, { project: loaded }),
  ])
  let forkedFrom: ProjectView | null = null
  if (source[0] && !source[0].pending_delete) {
    const { views } = await buildViews(ctx, [{ ...source[0], forked_from_project_id: null }])
    forkedFrom = canRead(views[0].access) ? views[0] : null
  }
  return { project, namespace, access, owner: owner[0] ?? null, forksCount: Number(forks[0]?.count ?? 0), forkedFrom, description }
}

/** The view of a project just changed by the caller. */
export async function reload(ctx: Context, project: ProjectRow): Promise<ProjectView> {
  const { views } = await buildViews(ctx, [project])
  return views[0]
}
