import { Forbidden } from '../../core/errors.js'
import { html } from '../../web/html.js'
import { findGroup, type LoadedGroup } from '../access/index.js'
import { renderMarkdown } from '../markdown/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { groupCrumbs, groupSidebar } from './group-frame.js'
import { canManageGroupMembers, changeGroupMember, groupMembersPage, inviteGroupMember, removeGroupMember } from './group-members.js'
import { groupHookPage } from './group-hooks.js'
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

/** The group a `/groups/<path>[/-/<page>]` URL names (404 when the caller may not see it), and the page. */
async function groupOfUrl(w: WebRequest): Promise<{ loaded: LoadedGroup; page: string | undefined }> {
  const rest = String((w.request.params as Record<string, string>)['*'] ?? '')
  const [fullPath, page] = rest.split('/-/')
  return { loaded: await findGroup(w.ctx, fullPath), page }
}

/**
 * A write to a group by those `allowed` (else the 404 page), where a refusal a service raises for a role is the 404
 * page too: the page never offered what it refuses.
 */
async function writing(w: WebRequest, allowed: boolean, action: () => Promise<unknown>): Promise<unknown> {
  if (!allowed) return w.notFound()
  try {
    return await action()
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
}

/** A group's webhooks page when the URL names one (see group-hooks.ts); undefined for another page. */
function hooksPageOf(w: WebRequest, loaded: LoadedGroup, page: string | undefined, method: 'GET' | 'POST' | 'PUT' | 'DELETE') {
  const found = groupHookPage(loaded, page, method)
  return found && writing(w, found.allowed, () => found.answer(w))
}

/** The membership id of `group_members/<id>`, or null for another page. */
function membershipIdOf(page: string | undefined): string | null {
  const match = /^group_members\/(\d{1,15})$/.exec(page ?? '')
  return match ? match[1] : null
}

export function registerGroupPages(web: WebRouter) {
  web.get('/groups/*', async (w) => {
    const { loaded, page } = await groupOfUrl(w)
    if (page === undefined) return showGroup(w, loaded)
    const hooks = hooksPageOf(w, loaded, page, 'GET')
    if (hooks) return hooks
    if (page === 'group_members') return groupMembersPage(w, loaded)
    if (page === 'edit') return canEditGroup(loaded) ? editGroupPage(w, loaded) : w.notFound()
    return w.notFound()
  })
  web.post('/groups/*', async (w) => {
    const { loaded, page } = await groupOfUrl(w)
    if (page === 'group_members') return writing(w, canManageGroupMembers(loaded), () => inviteGroupMember(w, loaded))
    const hooks = hooksPageOf(w, loaded, page, 'POST')
    if (hooks) return hooks
    return w.notFound()
  })
  // GL GroupsController#update (PATCH or PUT /groups/<path>), #transfer (PUT /groups/<path>/-/transfer), and a
  // member's role and expiry (PATCH or PUT /groups/<path>/-/group_members/<id>).
  const update = (transfer: boolean) => async (w: WebRequest) => {
    const { loaded, page } = await groupOfUrl(w)
    const membershipId = membershipIdOf(page)
    const hooks = hooksPageOf(w, loaded, page, 'PUT')
    if (hooks) return hooks
    if (page === undefined) return writing(w, canEditGroup(loaded), () => updateGroupFromForm(w, loaded))
    if (page === 'transfer' && transfer) return writing(w, canEditGroup(loaded), () => transferGroupFromForm(w, loaded))
    if (membershipId) return writing(w, canManageGroupMembers(loaded), () => changeGroupMember(w, loaded, membershipId))
    return w.notFound()
  }
  web.route('PATCH', '/groups/*', update(false))
  web.put('/groups/*', update(true))
  web.delete('/groups/*', async (w) => {
    const { loaded, page } = await groupOfUrl(w)
    const membershipId = membershipIdOf(page)
    const hooks = hooksPageOf(w, loaded, page, 'DELETE')
    if (hooks) return hooks
    if (page === undefined) return writing(w, canEditGroup(loaded), () => deleteGroupFromForm(w, loaded))
    if (membershipId) return writing(w, canManageGroupMembers(loaded), () => removeGroupMember(w, loaded, membershipId))
    return w.notFound()
  })
}
