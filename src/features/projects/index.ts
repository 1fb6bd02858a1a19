import type { Context } from '../../core/context.js'
import type { NamespaceRow } from '../../db/schema.js'
import { presentProject, type ProjectPresentOptions } from './present.js'
import { listGroupDetailProjects } from './list.js'

// Creation and lists as forks reuse them: a fork is a created project, its forks a project list.
export { canCreateProjectIn, createProject, type ForkCreation } from './create.js'
export { listProjects, type ListProjectsInput, type ProjectListResult } from './list.js'
export { viewOfLoaded } from './views.js'
// The settings pages change a project through the same use cases as PUT /projects/:id and its siblings.
export { deleteProject, setArchived, transferProject, TransferRefused, updateProject } from './update.js'
export { updateInputOf, type ProjectInput } from './attributes.js'
export type { UpdateProjectParams } from './schemas.js'
export { listInputOf, sendProjectList, setListHeaders } from './list-params.js'
export { presentBasicProject, presentProject, type ProjectView } from './present.js'
export { BasicProjectJson, FEATURE_LEVEL_PARAMS, ListProjectsParams, ProjectJson, ProjectListResponse, VISIBILITIES } from './schemas.js'

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

export { capVisibilityOfProjectsBelow, markProjectsBelowPendingDelete } from './groups.js'
export { inSameForkNetwork, markForkedFrom, moveImportStatus, unmarkForked, type ImportStatus } from './fork-state.js'
export { findMovedProjectLocation } from './web-redirects.js'
export { countProjectStarrers, isStarredByCaller, listStarrers, toggleStar, type Starrer } from './stars.js'
export { STARRER_ORDERS, type StarrerOrder } from './store.js'
export {
  projectBreadcrumbs,
  projectPage,
  projectPageRoutes,
  projectPath,
  projectSidebar,
  renderProjectPage,
  type ProjectSection,
} from './pages.js'

/** The Project entity's response schema, for resources that embed projects (GET /groups/:id). */
export { ProjectJson as ProjectEntitySchema } from './schemas.js'
export { removeProjectRepositories, jobHandlers } from './deletion.js'
