import { ProjectMoved } from '../../core/errors.js'
import { PROJECT_PAGE, type WebHandler, type WebRequest } from '../sessions/index.js'
import { findMovedProjectLocation } from './web-redirects.js'
import { AccessLevel } from '../../core/access.js'
import type { Crumb, Html, NavItem, PageOptions, Sidebar } from '../../web/html.js'
import {
  canAdminProject,
  canProject,
  canReadCode,
  canReadMergeRequests,
  canReadMilestones,
  canReadProjectSnippets,
  findProject,
  isFeatureAvailable,
  type LoadedProject,
} from '../access/index.js'
import { canReadMembers } from '../members/index.js'

/** The route of a project page: `/<namespace>/<project><suffix>` at any namespace depth. */
export function projectPageRoutes(suffix: string): string[] {
  return [`${PROJECT_PAGE}${suffix}`]
}

/** The project's full path from the route's own params (not from the query, which could carry an `s3`). */
function fullPathOf(w: WebRequest): string {
  const params = w.request.params as Record<string, string>
  if (params.project_full_path !== undefined) return params.project_full_path
  const segments: string[] = []
  for (let n = 1; params[`s${n}`] !== undefined; n++) segments.push(params[`s${n}`])
  return [...segments, params.project].join('/')
}

/**
 * A page of a project: a project the visitor cannot see is the 404 page (sign-in for a visitor who has not signed
 * in); a path the project had before a move redirects to its current one. The handler decides what the caller's role
 * opens.
 */
export function projectPage(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>): WebHandler {
  return async (w) => {
    let loaded: LoadedProject
    try {
      loaded = await findProject(w.ctx, fullPathOf(w))
    } catch (error) {
      if (error instanceof ProjectMoved) {
        const location = await findMovedProjectLocation(w.ctx, w.request.url)
        // GL find_routable!: a path the project had before answers 301 Moved Permanently.
        return location ? w.redirect(location, 301) : w.notFound()
      }
      throw error
    }
    return handler(w, loaded)
  }
}

/** A project's pages, as the sidebar names them. */
export type ProjectSection =
  | 'overview'
  | 'files'
  | 'commits'
  | 'branches'
  | 'tags'
  | 'compare'
  | 'issues'
  | 'merge_requests'
  | 'milestones'
  | 'labels'
  | 'snippets'
  | 'members'
  | 'alerts'
  | 'errors'
  | 'settings'
  | 'settings_general'
  | 'settings_webhooks'
  | 'settings_access_tokens'
  | 'settings_repository'
  | 'settings_merge_requests'

/** The project's page path: `/<namespace>/<project>` followed by `suffix` (`/-/tree/main`). */
export function projectPath(loaded: LoadedProject, suffix = ''): string {
  return `/${loaded.project.full_path}${suffix}`
}

/** The project's sidebar: only the sections the caller may use, `current` marked. */
export function projectSidebar(loaded: LoadedProject, current: ProjectSection | null): Sidebar {
  const { project, access } = loaded
  const item = (section: ProjectSection, label: string, suffix: string): NavItem => ({
    label,
    href: projectPath(loaded, suffix),
    current: section === current,
  })
  const items: NavItem[] = [item('overview', 'Project overview', '')]
  if (canReadCode(access, project)) {
    items.push({
      ...item('files', 'Code', '/-/tree/' + encodeURIComponent(project.default_branch ?? 'main')),
      current: ['files', 'commits', 'branches', 'tags', 'compare'].includes(current ?? ''),
      children: [
        item('files', 'Repository', '/-/tree/' + encodeURIComponent(project.default_branch ?? 'main')),
        item('commits', 'Commits', '/-/commits/' + encodeURIComponent(project.default_branch ?? 'main')),
        item('branches', 'Branches', '/-/branches'),
        item('tags', 'Tags', '/-/tags'),
        item('compare', 'Compare revisions', '/-/compare'),
      ],
    })
  }
  if (isFeatureAvailable(access, project, 'issues')) items.push(item('issues', 'Issues', '/-/issues'))
  if (canReadMergeRequests(access, project)) items.push(item('merge_requests', 'Merge requests', '/-/merge_requests'))
  if (canReadMilestones(access, project)) items.push(item('milestones', 'Milestones', '/-/milestones'))
  // GL `check_issuables_available!`: labels go with issues or merge requests.
  if (isFeatureAvailable(access, project, 'issues') || isFeatureAvailable(access, project, 'merge_requests')) {
    items.push(item('labels', 'Labels', '/-/labels'))
  }
  if (canReadProjectSnippets(loaded)) items.push(item('snippets', 'Snippets', '/-/snippets'))
  if (access.caller.user && access.level >= AccessLevel.DEVELOPER) {
    items.push(item('alerts', 'Alerts', '/-/alert_management'), item('errors', 'Error tracking', '/-/error_tracking'))
  }
  if (canReadMembers({ kind: 'project', ...loaded })) items.push(item('members', 'Members', '/-/project_members'))
  if (canAdminProject(access)) {
    // GL's Settings menu: each page for those who may use it (Maintainers and up).
    const children = [item('settings_general', 'General', '/edit'), item('settings_webhooks', 'Webhooks', '/-/hooks')]
    if (canProject(access, 'manage_resource_access_tokens'))
      children.push(item('settings_access_tokens', 'Access tokens', '/-/settings/access_tokens'))
    children.push(item('settings_repository', 'Repository', '/-/settings/repository'))
    if (isFeatureAvailable(access, project, 'merge_requests')) {
      children.push(item('settings_merge_requests', 'Merge requests', '/-/settings/merge_requests'))
    }
    children.push(item('settings', 'Monitor', '/-/settings/operations'))
    items.push({ ...item('settings_general', 'Settings', '/edit'), current: children.some((child) => child.current), children })
  }
  return { title: project.name, href: projectPath(loaded), items }
}

/** Breadcrumbs of a project's page: its namespaces, the project, then `trail`. */
export function projectBreadcrumbs(loaded: LoadedProject, ...trail: Crumb[]): Crumb[] {
  const names = loaded.project.full_name.split(' / ')
  const paths = loaded.project.full_path.split('/')
  const crumbs: Crumb[] = paths.slice(0, -1).map((_, index) => ({
    text: names[index] ?? paths[index],
    href: `/groups/${paths.slice(0, index + 1).join('/')}`,
  }))
  crumbs.push({ text: loaded.project.name, href: projectPath(loaded) })
  return [...crumbs, ...trail]
}

/** Renders one of the project's pages in the layout, with its sidebar and breadcrumbs. */
export function renderProjectPage(
  w: WebRequest,
  loaded: LoadedProject,
  options: { title: string; section: ProjectSection | null; crumbs?: Crumb[]; status?: number; flash?: PageOptions['flash'] },
  body: Html,
) {
  return w.render(
    {
      title: `${options.title} · ${loaded.project.full_name}`,
      sidebar: projectSidebar(loaded, options.section),
      breadcrumbs: projectBreadcrumbs(loaded, ...(options.crumbs ?? [])),
      flash: options.flash,
    },
    body,
    options.status,
  )
}
