import type { Context } from '../../core/context.js'
import type { NamespaceRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { listGroups, type ListGroupsInput } from '../groups/index.js'
import { listProjects, type ListProjectsInput, type ProjectView } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { adminPage, renderAdminPage } from './layout.js'
import { adminListViewOf, listPager, listTabsAndSearch, type AdminListView } from './list-controls.js'

// Every project and every group of the instance, for administrators (GL Admin::ProjectsController and
// Admin::GroupsController#index), through the API's finders: an administrator's finder sees them all.

const PER_PAGE = 20

const VISIBILITY_NAMES: Record<number, string> = { 0: 'Private', 10: 'Internal', 20: 'Public' }
const VISIBILITY_TABS = [
  { label: 'All', value: null },
  { label: 'Private', value: '0' },
  { label: 'Internal', value: '10' },
  { label: 'Public', value: '20' },
]
const VISIBILITY_BY_LEVEL = { '0': 'private', '10': 'internal', '20': 'public' } as const

function visibilityBadge(level: number): Html {
  return html`<span class="badge">${VISIBILITY_NAMES[level] ?? 'Private'}</span>`
}

function initial(name: string): Html {
  return html`<span class="avatar" aria-hidden="true">${(name.trim()[0] ?? '?').toUpperCase()}</span>`
}

/** A list's search text and visibility tab as a finder's filters; none when empty or on All. */
function searchAndVisibilityOf(view: AdminListView) {
  return {
    search: view.search === '' ? undefined : view.search,
    visibility: view.tab === null ? undefined : VISIBILITY_BY_LEVEL[view.tab as keyof typeof VISIBILITY_BY_LEVEL],
  }
}

/** Every project of the instance, newest first, one page of them. */
function listAllProjects(ctx: Context, filters: Pick<ListProjectsInput, 'search' | 'visibility'>, page: number, perPage: number) {
  return listProjects(ctx, {
    scope: { kind: 'all' },
    ...filters,
    owned: false,
    starred: false,
    imported: false,
    membership: false,
    withIssuesEnabled: false,
    withMergeRequestsEnabled: false,
    orderBy: 'created_at',
    sort: 'desc',
    pagination: { kind: 'offset', page, perPage },
  })
}

/** The newest projects, for the overview. */
export async function latestProjects(ctx: Context, count: number) {
  return listAllProjects(ctx, {}, 1, count)
}

/** Every group of the instance in the order asked, one page of them. */
function listAllGroups(
  ctx: Context,
  filters: Pick<ListGroupsInput, 'search' | 'visibility' | 'orderBy' | 'sort'>,
  page: number,
  perPage: number,
) {
  return listGroups(ctx, {
    statistics: false,
    owned: false,
    allAvailable: true,
    ...filters,
    withCustomAttributes: false,
    pagination: { kind: 'offset', page, perPage },
  })
}

/** The newest groups, for the overview. */
export async function latestGroups(ctx: Context, count: number) {
  return listAllGroups(ctx, { orderBy: 'id', sort: 'desc' }, 1, count)
}

export function projectRows(views: readonly ProjectView[]): Html {
  return html`<ul class="list admin-projects">
    ${views.map(
      ({ project, namespace }) => html`<li id="project_${project.id}">
        ${initial(project.name)}
        <div class="grow">
          <a class="title" href="/${project.full_path}">${project.full_name}</a> ${visibilityBadge(project.visibility_level)}
          <div class="meta">${namespace.kind === 'user' ? 'Personal project' : html`Group <a href="/groups/${namespace.full_path}">${namespace.full_name}</a>`}</div>
        </div>
        <span class="meta">Created ${timeOf(project.created_at)}</span>
      </li>`,
    )}
  </ul>`
}

export function groupRows(groups: readonly NamespaceRow[]): Html {
  return html`<ul class="list admin-groups">
    ${groups.map(
      (group) => html`<li id="group_${group.id}">
        ${initial(group.name)}
        <div class="grow">
          <a class="title" href="/groups/${group.full_path}">${group.full_name}</a> ${visibilityBadge(group.visibility_level)}
          <div class="meta">${group.full_path}${group.description ? html` · ${group.description}` : ''}</div>
        </div>
        <span class="meta">Created ${timeOf(group.created_at)}</span>
      </li>`,
    )}
  </ul>`
}

async function showProjects(w: WebRequest) {
  const view = adminListViewOf(w.params, '/admin/projects', 'visibility_level', ['0', '10', '20'], 'name')
  const list = await listAllProjects(w.ctx, searchAndVisibilityOf(view), view.page, PER_PAGE)
  const page = list.offset ?? { total: null, hasNext: false }
  return renderAdminPage(
    w,
    { title: 'Projects', section: 'projects', crumbs: [{ text: 'Projects' }] },
    html`<h1>Projects</h1>
      ${listTabsAndSearch(view, VISIBILITY_TABS, 'Filter by name')}
      ${list.views.length === 0 ? html`<div class="empty-state"><p>No projects found.</p></div>` : projectRows(list.views)}
      ${listPager(view, { total: page.total, hasNext: page.hasNext, perPage: PER_PAGE }, 'projects')}`,
  )
}

async function showGroups(w: WebRequest) {
  const view = adminListViewOf(w.params, '/admin/groups', 'visibility_level', ['0', '10', '20'], 'name')
  const list = await listAllGroups(
    w.ctx,
    {
      ...searchAndVisibilityOf(view),
      orderBy: 'name',
      sort: 'asc',
    },
    view.page,
    PER_PAGE,
  )
  const page = list.page
  const rows = [...page.rows]
  const counted = list.kind === 'offset' ? { total: list.page.total, hasNext: list.page.hasNext } : { total: null, hasNext: false }
  return renderAdminPage(
    w,
    { title: 'Groups', section: 'groups', crumbs: [{ text: 'Groups' }] },
    html`<h1>Groups</h1>
      ${listTabsAndSearch(view, VISIBILITY_TABS, 'Search by name')}
      ${rows.length === 0 ? html`<div class="empty-state"><p>No groups found.</p></div>` : groupRows(rows)}
      ${listPager(view, { ...counted, perPage: PER_PAGE }, 'groups')}`,
  )
}

export function registerAdminListPages(web: WebRouter) {
  web.get('/admin/projects', adminPage(showProjects))
  web.get('/admin/groups', adminPage(showGroups))
}
