import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { NamespaceRow } from '../../db/schema.js'
import { listGroups, type ListGroupsInput } from '../groups/index.js'
import { listProjects, type ListProjectsInput, type ProjectView } from '../projects/index.js'

// The project and group lists of the overview pages, through the API's own finders (so a page shows exactly what the
// API would list for the same caller).

const PROJECTS_SHOWN = 20
const GROUPS_SHOWN = 20

export interface ProjectListOf {
  scope: ListProjectsInput['scope']
  membership?: boolean
  starred?: boolean
  search?: string
  page?: number
}

export async function projectsOf(ctx: Context, of: ProjectListOf): Promise<{ views: ProjectView[]; total: number | null }> {
  const list = await listProjects(ctx, {
    scope: of.scope,
    search: of.search,
    owned: false,
    starred: of.starred ?? false,
    imported: false,
    membership: of.membership ?? false,
    withIssuesEnabled: false,
    withMergeRequestsEnabled: false,
    orderBy: 'last_activity_at',
    sort: 'desc',
    pagination: { kind: 'offset', page: of.page ?? 1, perPage: PROJECTS_SHOWN },
  })
  return { views: list.views, total: list.offset?.total ?? null }
}

export async function groupsOf(
  ctx: Context,
  of: { parent?: NamespaceRow; minAccessLevel?: number; search?: string; topLevelOnly?: boolean },
): Promise<NamespaceRow[]> {
  const input: ListGroupsInput = {
    statistics: false,
    owned: false,
    orderBy: 'name',
    sort: 'asc',
    withCustomAttributes: false,
    minAccessLevel: of.minAccessLevel,
    // Pages list every group the visitor may see; only "your groups" asks for a role.
    allAvailable: of.minAccessLevel === undefined,
    search: of.search,
    topLevelOnly: of.topLevelOnly,
    pagination: { kind: 'offset', page: 1, perPage: GROUPS_SHOWN },
  }
  const list = await listGroups(ctx, input, of.parent ? { group: of.parent, descendants: false } : null)
  return [...list.page.rows]
}

/** The user's own projects, for their profile (GL users/:username/projects). */
export function personalProjectsOf(ctx: Context, user: User) {
  return projectsOf(ctx, { scope: { kind: 'user', user } })
}
