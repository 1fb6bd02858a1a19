import { canRead } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { NotFound, ProjectMoved } from '../../core/errors.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { projectAccess, type ProjectAccess } from '../access/index.js'
import { findNamespaceById, findRedirectedProjectId } from '../namespaces/index.js'
import { presentProject, type ProjectPresentOptions } from './present.js'
import { listGroupDetailProjects } from './service.js'
import { findProjectByFullPath, findProjectById } from './store.js'

/** A project with its namespace and what the caller may do there. */
export interface LoadedProject {
  project: ProjectRow
  namespace: NamespaceRow
  access: ProjectAccess
}

export async function withAccess(ctx: Context, project: ProjectRow): Promise<LoadedProject> {
  const [namespace] = await findNamespaceById(ctx.db, project.namespace_id)
  return { project, namespace, access: await projectAccess(ctx, project, namespace) }
}

// Creation and lists as forks reuse them: a fork is a created project, its forks a project list.
export {
  canCreateProjectIn,
  createProject,
  listProjects,
  viewOfLoaded,
  type ForkCreation,
  type ListProjectsInput,
  type ProjectListResult,
} from './service.js'
export { listInputOf, presentProjectList, setListHeaders } from './list-params.js'
export { presentBasicProject, presentProject, presentProjectIdentity, type ProjectView } from './present.js'
export { canReadCode, canReadNamespaceViaMembership, isFeatureAvailable } from './policy.js'
export { BasicProjectJson, FEATURE_LEVEL_PARAMS, ListProjectsParams, ProjectJson, ProjectListResponse, VISIBILITIES } from './schemas.js'

/**
 * A project by id or full path as the caller may see it (GL helpers.rb `find_project!`): 404 "Project Not
 * Found" when it does not exist or is hidden from them. A path it had before a move, or its path written in
 * other letter case, answers ProjectMoved (GL `project_moved?`).
 */
export async function findProject(ctx: Context, idOrPath: string | number): Promise<LoadedProject> {
  const text = String(idOrPath)
  let project: ProjectRow | undefined
  if (/^\d+$/.test(text)) {
    const id = Number(text)
    project = Number.isSafeInteger(id) ? (await findProjectById(ctx.db, id))[0] : undefined
  } else {
    project = await findProjectByFullPath(ctx.db, text)
    if (!project) {
      const redirect = await findRedirectedProjectId(ctx.db, text)
      const moved = redirect?.project_id ? (await findProjectById(ctx.db, redirect.project_id))[0] : undefined
      if (moved && canRead((await withAccess(ctx, moved)).access)) throw new ProjectMoved(moved.id)
    }
  }
  // A project marked for deletion is gone for every caller (GL `Project.without_deleted`).
  if (!project || project.pending_delete) throw new NotFound('Project')
  const loaded = await withAccess(ctx, project)
  if (!canRead(loaded.access)) throw new NotFound('Project')
  if (text.includes('/') && project.full_path !== text) throw new ProjectMoved(project.id)
  return loaded
}

/** Presenter options for the caller of `ctx`. */
export function projectPresentOptions(
  ctx: Context,
  options: { statistics?: boolean; withCustomAttributes?: boolean } = {},
): ProjectPresentOptions {
  return {
    viewer: ctx.caller,
    externalUrl: ctx.config.externalUrl,
    now: ctx.now(),
    statistics: options.statistics ?? false,
    withCustomAttributes: options.withCustomAttributes ?? false,
  }
}

/**
 * The `projects` GET /groups/:id embeds (GL Entities::GroupDetail): the group's own projects the caller may see,
 * newest first, at most 100, each as the Project entity.
 */
export async function listProjectsOfGroupForDetail(ctx: Context, group: NamespaceRow): Promise<unknown[]> {
  const { views } = await listGroupDetailProjects(ctx, group)
  const options = projectPresentOptions(ctx)
  return views.map((view) => presentProject(view, options))
}

export { findNamespacesByIds, findProjectsByIds, insertProject } from './store.js'
export { findMovedProjectLocation } from './web-redirects.js'
export { projectPage, projectPageRoutes } from './pages.js'

/** The Project entity's response schema, for resources that embed projects (GET /groups/:id). */
export { ProjectJson as ProjectEntitySchema } from './schemas.js'
export { removeProjectRepositories, jobHandlers } from './deletion.js'
