import { html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { countJobsByKindAndState } from '../../jobs/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { listUsersForAdmin } from '../users/index.js'
import { adminUserPath } from './users.js'
import { adminPage, renderAdminPage } from './layout.js'
import { groupRows, latestGroups, latestProjects, projectRows } from './lists.js'

// The admin area's dashboard (GL Admin::DashboardController#index): how many projects, users and groups, the latest
// of each, and whether jobs are failing.

const LATEST = 5

function countText(total: number | null): string {
  return total === null ? '10,000+' : total.toLocaleString('en-US')
}

async function showOverview(w: WebRequest) {
  const [projects, users, groups, jobs] = await Promise.all([
    latestProjects(w.ctx, LATEST),
    listUsersForAdmin(w.ctx, { filter: null, search: '', page: 1, perPage: LATEST, newestFirst: true }),
    latestGroups(w.ctx, LATEST),
    countJobsByKindAndState(w.ctx.db),
  ])
  const groupTotal = groups.kind === 'offset' ? groups.page.total : null
  const failed = jobs.filter((row) => row.state === 'failed').reduce((sum, row) => sum + row.count, 0)
  const stat = (label: string, total: number | null, href: string) =>
    html`<a class="stat box" href="${href}"><span class="stat-count">${countText(total)}</span><span class="stat-label">${label}</span></a>`
  const body = html`<h1>Admin area</h1>
    <div class="stats">
      ${stat('Projects', projects.offset?.total ?? null, '/admin/projects')} ${stat('Users', users.total, '/admin/users')}
      ${stat('Groups', groupTotal, '/admin/groups')} ${stat('Failed jobs', failed, '/admin/background_jobs')}
    </div>
    <div class="overview-lists">
      <section aria-labelledby="latest-projects">
        <h2 id="latest-projects">Latest projects</h2>
        ${projects.views.length === 0 ? html`<p class="empty">No projects yet.</p>` : projectRows(projects.views)}
      </section>
      <section aria-labelledby="latest-users">
        <h2 id="latest-users">Latest users</h2>
        <ul class="list admin-users-latest">
          ${users.rows.map(
            (user) => html`<li>
              <div class="grow"><a class="title" href="${adminUserPath(user)}">${user.name}</a> <span class="meta">@${user.username}</span></div>
              <span class="meta">${timeOf(user.created_at)}</span>
            </li>`,
          )}
        </ul>
      </section>
      <section aria-labelledby="latest-groups">
        <h2 id="latest-groups">Latest groups</h2>
        ${groups.page.rows.length === 0 ? html`<p class="empty">No groups yet.</p>` : groupRows([...groups.page.rows])}
      </section>
    </div>`
  return renderAdminPage(w, { title: 'Overview', section: 'overview', crumbs: [{ text: 'Overview' }] }, body)
}

export function registerAdminOverviewPage(web: WebRouter) {
  web.get('/admin', adminPage(showOverview))
}
