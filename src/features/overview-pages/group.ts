import { Forbidden } from '../../core/errors.js'
import { html } from '../../web/html.js'
import { findGroup, type LoadedGroup } from '../access/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { canReadMembers, listMembers } from '../members/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { ROLE_NAMES } from '../settings-pages/index.js'
import { groupCrumbs, groupSidebar } from './group-frame.js'
import { canEditGroup, deleteGroupFromForm, editGroupPage, transferGroupFromForm, updateGroupFromForm } from './group-settings.js'
import { groupsOf, projectsOf } from './lists.js'
import { avatar, groupList, projectList, visibilityBadge } from './parts.js'

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

/** The group a `/groups/<path>[/-/<page>]` URL names (404 when the caller may not see it), and the page. */
async function groupOfUrl(w: WebRequest): Promise<{ loaded: LoadedGroup; page: string | undefined }> {
  const rest = String((w.request.params as Record<string, string>)['*'] ?? '')
  const [fullPath, page] = rest.split('/-/')
  return { loaded: await findGroup(w.ctx, fullPath), page }
}

/** A write to a group: the 404 page for those who may not administer it, and for a refusal a service raises for a role. */
async function asAdministrator(w: WebRequest, loaded: LoadedGroup, action: () => Promise<unknown>): Promise<unknown> {
  if (!canEditGroup(loaded)) return w.notFound()
  try {
    return await action()
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
}

export function registerGroupPages(web: WebRouter) {
  web.get('/groups/*', async (w) => {
    const { loaded, page } = await groupOfUrl(w)
    if (page === undefined) return showGroup(w, loaded)
    if (page === 'group_members') return showMembers(w, loaded)
    if (page === 'edit') return canEditGroup(loaded) ? editGroupPage(w, loaded) : w.notFound()
    return w.notFound()
  })
  // GL GroupsController#update (PATCH or PUT /groups/<path>) and #transfer (PUT /groups/<path>/-/transfer).
  const update = (transfer: boolean) => async (w: WebRequest) => {
    const { loaded, page } = await groupOfUrl(w)
    if (page === undefined) return asAdministrator(w, loaded, () => updateGroupFromForm(w, loaded))
    if (page === 'transfer' && transfer) return asAdministrator(w, loaded, () => transferGroupFromForm(w, loaded))
    return w.notFound()
  }
  web.route('PATCH', '/groups/*', update(false))
  web.put('/groups/*', update(true))
  web.delete('/groups/*', async (w) => {
    const { loaded, page } = await groupOfUrl(w)
    if (page === undefined) return asAdministrator(w, loaded, () => deleteGroupFromForm(w, loaded))
    return w.notFound()
  })
}
