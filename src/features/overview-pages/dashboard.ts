import type { Context } from '../../core/context.js'
import type { User } from '../../core/caller.js'
import { html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { findProjectsByIds } from '../access/index.js'
import { recentEvents } from '../events/index.js'
import { listIssues } from '../issues/index.js'
import { listMergeRequests } from '../merge-requests/index.js'
import { SIGN_IN_PATH, type WebRequest, type WebRouter } from '../sessions/index.js'
import { groupsOf, projectsOf } from './lists.js'
import { activityList, groupList, projectList } from './parts.js'

const TODO_SHOWN = 10
const ACTIVITY_SHOWN = 15

interface IssuableRow {
  project_id: number
  iid: number
  title: string
  updated_at: string
}

async function issuableList(ctx: Context, rows: readonly IssuableRow[], kind: 'issues' | 'merge_requests', empty: string): Promise<Html> {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`
  const projects = new Map((await findProjectsByIds(ctx.db, [...new Set(rows.map((row) => row.project_id))])).map((p) => [p.id, p]))
  const sigil = kind === 'issues' ? '#' : '!'
  return html`<ul class="list ${kind}">
    ${rows.map((row) => {
      const project = projects.get(row.project_id)
      if (!project) return ''
      return html`<li>
        <div class="grow">
          <a class="title" href="/${project.full_path}/-/${kind}/${row.iid}">${row.title}</a>
          <div class="meta">${project.full_path}${sigil}${row.iid} · updated ${timeOf(row.updated_at)}</div>
        </div>
      </li>`
    })}
  </ul>`
}

/** GET / signed in: your projects, your groups, what waits for you and what happened (GL dashboard/projects, home). */
async function showDashboard(w: WebRequest, user: User) {
  const { ctx } = w
  const openMergeRequests = (filters: { reviewerId: string } | { scope: 'assigned_to_me' }) =>
    listMergeRequests(ctx, {
      filters: { state: 'opened', scope: 'all', ...filters },
      orderBy: 'updated_at',
      sort: 'desc',
      page: 1,
      perPage: TODO_SHOWN,
    })
  const [projects, starred, groups, issues, reviews, mergeRequests, events] = await Promise.all([
    projectsOf(ctx, { scope: { kind: 'all' }, membership: true }),
    projectsOf(ctx, { scope: { kind: 'all' }, starred: true }),
    groupsOf(ctx, { minAccessLevel: 10 }),
    listIssues(ctx, {
      filters: { state: 'opened', assigneeId: String(user.id), scope: 'all' },
      orderBy: 'updated_at',
      sort: 'desc',
      pagination: { kind: 'offset', page: 1, perPage: TODO_SHOWN },
    }),
    openMergeRequests({ reviewerId: String(user.id) }),
    openMergeRequests({ scope: 'assigned_to_me' }),
    recentEvents(ctx, { own: true }, ACTIVITY_SHOWN),
  ])
  const paths = new Map(
    (await findProjectsByIds(ctx.db, [...new Set(events.map((e) => e.project_id).filter((id): id is number => id !== null))])).map((p) => [
      p.id,
      p.full_path,
    ]),
  )
  return w.render(
    { title: 'Home' },
    html`<h1>Welcome, ${user.name}</h1>
      <p class="muted">Signed in as <strong>@${user.username}</strong>.</p>
      <div class="dashboard">
        <section aria-labelledby="projects-heading">
          <div class="header-row">
            <h2 id="projects-heading">Your projects</h2>
            <div class="actions"><a class="button primary" href="/projects/new">New project</a></div>
          </div>
          ${projectList(projects.views, html`<p>You are not a member of any project yet.</p><p><a href="/explore">Explore projects</a> or create one.</p>`)}
        </section>
        <section aria-labelledby="starred-heading">
          <h2 id="starred-heading">Starred projects</h2>
          ${projectList(starred.views, html`Projects you star show here.`)}
        </section>
        <section aria-labelledby="issues-heading">
          <h2 id="issues-heading">Issues assigned to you</h2>
          ${await issuableList(ctx, issues.page.rows, 'issues', 'No open issues are assigned to you.')}
        </section>
        <section aria-labelledby="reviews-heading">
          <h2 id="reviews-heading">Merge requests for you to review</h2>
          ${await issuableList(ctx, reviews.rows, 'merge_requests', 'No open merge requests wait for your review.')}
        </section>
        <section aria-labelledby="mrs-heading">
          <h2 id="mrs-heading">Merge requests assigned to you</h2>
          ${await issuableList(ctx, mergeRequests.rows, 'merge_requests', 'No open merge requests are assigned to you.')}
        </section>
        <section aria-labelledby="groups-heading">
          <h2 id="groups-heading">Your groups</h2>
          ${groupList(groups, html`You are not a member of any group yet.`)}
        </section>
        <section aria-labelledby="activity-heading">
          <h2 id="activity-heading">Activity</h2>
          ${activityList(events, paths, 'Nothing has happened in your projects yet.')}
        </section>
      </div>`,
  )
}

/** GET /explore, /explore/projects and /explore/groups: what the visitor may see (GL explore/projects, explore/groups). */
async function showExplore(w: WebRequest, tab: 'projects' | 'groups') {
  const { ctx } = w
  const search = typeof w.params.search === 'string' ? w.params.search.trim() : ''
  const tabs = html`<nav class="tabs" aria-label="Explore">
    <a href="/explore/projects" ${tab === 'projects' ? html`aria-current="page"` : ''}>Projects</a>
    <a href="/explore/groups" ${tab === 'groups' ? html`aria-current="page"` : ''}>Groups</a>
  </nav>`
  const form = html`<form method="get" action="/explore/${tab}" class="explore-search" role="search">
    <label for="explore_search">Filter by name</label>
    <div class="copy-field"><input type="search" id="explore_search" name="search" value="${search}" /><button type="submit">Search</button></div>
  </form>`
  const list =
    tab === 'projects'
      ? projectList((await projectsOf(ctx, { scope: { kind: 'all' }, search: search || undefined })).views, html`No projects found.`)
      : groupList(await groupsOf(ctx, { search: search || undefined }), html`No groups found.`)
  return w.render({ title: tab === 'projects' ? 'Explore projects' : 'Explore groups' }, html`<h1>Explore</h1>${tabs}${form}${list}`)
}

export function registerDashboardPages(web: WebRouter) {
  web.get('/', async (w) => {
    const user = w.ctx.caller.user
    // GL RootController#redirect_unlogged_user: a visitor goes to sign in (whose page links to explore).
    if (!user) return w.redirect(SIGN_IN_PATH)
    return showDashboard(w, user)
  })
  web.get('/explore', (w) => showExplore(w, 'projects'))
  web.get('/explore/projects', (w) => showExplore(w, 'projects'))
  web.get('/explore/groups', (w) => showExplore(w, 'groups'))
}
