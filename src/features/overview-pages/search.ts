import { html } from '../../web/html.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { findVisibleUsers } from '../users/index.js'
import { groupsOf, projectsOf } from './lists.js'
import { avatar, groupList, projectList } from './parts.js'

/** GET /search?search=…: projects, groups and users whose names match, as the visitor may see them (GL search/show). */
async function showSearch(w: WebRequest) {
  const { ctx } = w
  const search = typeof w.params.search === 'string' ? w.params.search.trim() : ''
  const form = html`<form method="get" action="/search" role="search" class="search-form">
    <label for="search_page">Search projects, groups and users</label>
    <div class="copy-field"><input type="search" id="search_page" name="search" value="${search}" /><button type="submit">Search</button></div>
  </form>`
  if (search.length < 2) {
    return w.render({ title: 'Search' }, html`<h1>Search</h1>${form}<p class="help">Enter at least two characters.</p>`)
  }
  const [projects, groups, users] = await Promise.all([
    projectsOf(ctx, { scope: { kind: 'all' }, search }),
    groupsOf(ctx, { search }),
    findVisibleUsers(ctx, search, 20),
  ])
  return w.render(
    { title: `${search} · Search` },
    html`<h1>Search</h1>
      ${form}
      <h2>Projects</h2>
      ${projectList(projects.views, html`No projects match.`)}
      <h2>Groups</h2>
      ${groupList(groups, html`No groups match.`)}
      <h2>Users</h2>
      ${
        users.length === 0
          ? html`<div class="empty-state">No users match.</div>`
          : html`<ul class="list users">
            ${users.map(
              (user) =>
                html`<li>
                  ${avatar(user.name)}
                  <div class="grow"><a class="title" href="/${user.username}">${user.name}</a> <span class="meta">@${user.username}</span></div>
                </li>`,
            )}
          </ul>`
      }`,
  )
}

export function registerSearchPage(web: WebRouter) {
  web.get('/search', showSearch)
}
