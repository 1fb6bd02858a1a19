import type { Sidebar } from '../../web/html.js'
import { html } from '../../web/html.js'
import { findGroup, type LoadedGroup } from '../access/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { canReadMembers, listMembers } from '../members/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { groupsOf, projectsOf } from './lists.js'
import { avatar, groupList, projectList, visibilityBadge } from './parts.js'

const ROLE_NAMES: Record<number, string> = {
  5: 'Minimal Access',
  10: 'Guest',
  15: 'Planner',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
}

function groupSidebar(loaded: LoadedGroup, current: 'overview' | 'members'): Sidebar {
  const base = `/groups/${loaded.group.full_path}`
  return {
    title: loaded.group.name,
    href: base,
    items: [
      { label: 'Group overview', href: base, current: current === 'overview' },
      { label: 'Members', href: `${base}/-/group_members`, current: current === 'members' },
    ],
  }
}

function groupCrumbs(loaded: LoadedGroup) {
  const names = loaded.group.full_name.split(' / ')
  const paths = loaded.group.full_path.split('/')
  return paths.map((_, index) => ({ text: names[index] ?? paths[index], href: `/groups/${paths.slice(0, index + 1).join('/')}` }))
}

/** GET /groups/<path>: the group, its subgroups and projects (GL groups/show). */
async function showGroup(w: WebRequest, loaded: LoadedGroup) {
  const { ctx } = w
  const { group } = loaded
  const [subgroups, projects] = await Promise.all([
    groupsOf(ctx, { parent: group }),
    projectsOf(ctx, { scope: { kind: 'group', group, includeSubgroups: false, includeAncestors: false } }),
  ])
  const description = group.description ? await renderMarkdown(ctx, group.description, { group: loaded }) : null
  return w.render(
    { title: group.full_name, sidebar: groupSidebar(loaded, 'overview'), breadcrumbs: groupCrumbs(loaded) },
    html`<div class="header-row">
        ${avatar(group.name, 'large')}
        <div>
          <h1>${group.name} ${visibilityBadge(group.visibility_level)}</h1>
          <div class="muted">Group ID: ${group.id}</div>
        </div>
      </div>
      ${description ? html`<div class="markdown group-description">${description}</div>` : ''}
      <h2>Subgroups</h2>
      ${groupList(subgroups, html`This group has no subgroups you can see.`)}
      <h2>Projects</h2>
      ${projectList(projects.views, html`This group has no projects you can see.`)}`,
  )
}

/** GET /groups/<path>/-/group_members: who belongs to the group, and with which role. */
async function showMembers(w: WebRequest, loaded: LoadedGroup) {
  const source = { kind: 'group' as const, group: loaded.group, access: loaded.access }
  if (!canReadMembers(source)) return w.notFound()
  const { views } = await listMembers(w.ctx, source, { showSeatInfo: false, page: 1, perPage: 100 })
  return w.render(
    {
      title: `Members · ${loaded.group.full_name}`,
      sidebar: groupSidebar(loaded, 'members'),
      breadcrumbs: [...groupCrumbs(loaded), { text: 'Members' }],
    },
    html`<h1>Group members</h1>
      <div class="table-box">
        <table class="members">
          <thead>
            <tr><th scope="col">Account</th><th scope="col">Role</th><th scope="col">Expires</th></tr>
          </thead>
          <tbody>
            ${views.map(
              (member) =>
                html`<tr>
                  <td><a href="/${member.user.username}">${member.user.name}</a> <span class="muted">@${member.user.username}</span></td>
                  <td>${ROLE_NAMES[member.accessLevel] ?? member.accessLevel}</td>
                  <td>${member.row.expires_at ?? html`<span class="muted">Never</span>`}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`,
  )
}

export function registerGroupPages(web: WebRouter) {
  web.get('/groups/*', async (w) => {
    const rest = String((w.request.params as Record<string, string>)['*'] ?? '')
    const [fullPath, page] = rest.split('/-/')
    const loaded = await findGroup(w.ctx, fullPath)
    if (page === undefined) return showGroup(w, loaded)
    if (page === 'group_members') return showMembers(w, loaded)
    return w.notFound()
  })
}
