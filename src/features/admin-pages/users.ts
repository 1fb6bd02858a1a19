import type { User } from '../../core/caller.js'
import { DomainError, NotFound } from '../../core/errors.js'
import { dayElement } from '../../web/dates.js'
import { refusalOf } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  activateUser,
  ADMIN_USER_FILTERS,
  blockUser,
  canStopImpersonating,
  deactivateUser,
  findUserByIdOrUsername,
  findUserForAdmin,
  impersonationRefusal,
  listUsersForAdmin,
  unblockUser,
  updateUser,
  type AdminUserFilter,
} from '../users/index.js'
import { actionButton, adminPage, renderAdminPage } from './layout.js'
import { adminListViewOf, listPager, listTabsAndSearch } from './list-controls.js'

// The admin area's users (GL Admin::UsersController, Admin::ImpersonationsController).

const USERS_PER_PAGE = 20

const TABS: { label: string; value: AdminUserFilter | null }[] = [
  { label: 'All', value: null },
  { label: 'Active', value: 'active' },
  { label: 'Admins', value: 'admins' },
  { label: 'External', value: 'external' },
  { label: 'Blocked', value: 'blocked' },
  { label: 'Deactivated', value: 'deactivated' },
]

export function adminUserPath(user: User): string {
  return `/admin/users/${encodeURIComponent(user.username)}`
}

/** GitLab's badges beside a user in the admin area (UsersHelper#user_badges_in_admin_section). */
function userBadges(user: User, viewer: User | null): Html {
  const badges: Html[] = []
  if (user.state === 'blocked' || user.state === 'ldap_blocked') badges.push(html`<span class="badge status-triggered">Blocked</span>`)
  if (user.admin === 1) badges.push(html`<span class="badge status-resolved">Admin</span>`)
  if (user.bot === 1) badges.push(html`<span class="badge">Bot</span>`)
  if (user.state === 'deactivated') badges.push(html`<span class="badge status-triggered">Deactivated</span>`)
  if (user.external === 1) badges.push(html`<span class="badge status-acknowledged">External</span>`)
  if (viewer && viewer.id === user.id) badges.push(html`<span class="badge status-closed">It's you!</span>`)
  return html`${badges.map((badge) => html`${badge} `)}`
}

function initial(name: string): Html {
  return html`<span class="avatar" aria-hidden="true">${(name.trim()[0] ?? '?').toUpperCase()}</span>`
}

async function showUserList(w: WebRequest) {
  const view = adminListViewOf(w.params, '/admin/users', 'filter', ADMIN_USER_FILTERS, 'search_query')
  const page = await listUsersForAdmin(w.ctx, {
    filter: view.tab as AdminUserFilter | null,
    search: view.search,
    page: view.page,
    perPage: USERS_PER_PAGE,
  })
  const viewer = w.ctx.caller.user
  const rows =
    page.rows.length === 0
      ? html`<div class="empty-state"><p>No users found.</p></div>`
      : html`<div class="table-box">
          <table class="admin-users">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created on</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              ${page.rows.map(
                (user) => html`<tr id="user_${user.id}">
                  <td>
                    <div class="user-summary">
                      ${initial(user.name)}
                      <div class="grow">
                        <a class="title" href="${adminUserPath(user)}">${user.name}</a> ${userBadges(user, viewer)}
                        <div class="meta">@${user.username} · ${user.email}</div>
                      </div>
                    </div>
                  </td>
                  <td>${dayElement(user.created_at)}</td>
                  <td>${user.last_activity_on ?? html`<span class="none">Never</span>`}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
  return renderAdminPage(
    w,
    { title: 'Users', section: 'users', crumbs: [{ text: 'Users' }] },
    html`<h1>Users</h1>
      ${listTabsAndSearch(view, TABS, 'Search by name, email or username')} ${rows}
      ${listPager(view, { total: page.total, hasNext: page.hasNext, perPage: USERS_PER_PAGE }, 'users')}`,
  )
}

function field(label: string, value: Html | string, className: string): Html {
  return html`<dt>${label}</dt>
    <dd class="${className}">${value}</dd>`
}

function yesNo(flag: number): string {
  return flag === 1 ? 'Yes' : 'No'
}

/** The actions an administrator may take on `user`, each a form; none on themselves but what GitLab offers there. */
function userActions(w: WebRequest, user: User, csrf: Html): Html {
  const path = adminUserPath(user)
  const self = w.ctx.caller.user?.id === user.id
  const put = html`<input type="hidden" name="_method" value="put" />`
  const state: Html[] = []
  if (!self) {
    if (user.state === 'active') {
      state.push(actionButton(`${path}/block`, csrf, 'Block', 'danger', put))
      state.push(actionButton(`${path}/deactivate`, csrf, 'Deactivate', 'secondary', put))
    }
    if (user.state === 'blocked') state.push(actionButton(`${path}/unblock`, csrf, 'Unblock', 'primary', put))
    if (user.state === 'deactivated') {
      state.push(actionButton(`${path}/activate`, csrf, 'Activate', 'primary', put))
      state.push(actionButton(`${path}/block`, csrf, 'Block', 'danger', put))
    }
    const level = user.admin === 1 ? 'regular' : 'admin'
    state.push(
      actionButton(
        path,
        csrf,
        user.admin === 1 ? 'Remove admin' : 'Make admin',
        'secondary',
        html`${put}<input type="hidden" name="user[access_level]" value="${level}" />`,
      ),
    )
  }
  if (state.length === 0) return html``
  return html`<section class="box admin-user-actions" aria-labelledby="account-actions">
    <header><h2 id="account-actions">Account</h2></header>
    <div class="body">
      <p class="help">Blocking ends the user's sessions and access; a deactivated user comes back by signing in.</p>
      <div class="button-row">${state}</div>
    </div>
  </section>`
}

/** Impersonate, or why not (GitLab shows the reason on its disabled button). */
function impersonation(w: WebRequest, user: User, csrf: Html): Html {
  if (!w.ctx.settings.impersonation_enabled || w.ctx.caller.user?.id === user.id) return html``
  const refusal = impersonationRefusal(w.ctx, user, w.impersonatorId !== null)
  if (refusal) return html`<p class="help impersonation-refused">${refusal}</p>`
  return actionButton(`${adminUserPath(user)}/impersonate`, csrf, 'Impersonate', 'secondary')
}

async function showUser(w: WebRequest, user: User) {
  const csrf = csrfField(await w.csrfToken())
  const body = html`<div class="header-row admin-user-header">
      ${initial(user.name)}
      <h1>${user.name}</h1>
      <span>${userBadges(user, w.ctx.caller.user)}</span>
      <div class="actions">${impersonation(w, user, csrf)}</div>
    </div>
    <dl class="fields admin-user-fields">
      ${field('Username', html`<a href="/${user.username}">@${user.username}</a>`, 'user-username')}
      ${field('Email', user.email, 'user-email')} ${field('State', user.state, 'user-state')}
      ${field('Access level', user.admin === 1 ? 'Administrator' : 'Regular', 'user-access-level')}
      ${field('External', yesNo(user.external), 'user-external')} ${field('Can create groups', yesNo(user.can_create_group), 'user-can-create-group')}
      ${field('Personal projects limit', String(user.projects_limit), 'user-projects-limit')}
      ${field('Two-factor authentication', user.two_factor_enabled === 1 ? 'Enabled' : 'Disabled', 'user-two-factor')}
      ${field('Member since', timeOf(user.created_at), 'user-created')}
      ${field('Last sign-in', user.last_sign_in_at ? timeOf(user.last_sign_in_at) : html`<span class="none">Never</span>`, 'user-last-sign-in')}
      ${field('Last activity', user.last_activity_on ?? html`<span class="none">Never</span>`, 'user-last-activity')}
    </dl>
    ${userActions(w, user, csrf)}`
  return renderAdminPage(
    w,
    { title: user.name, section: 'users', crumbs: [{ text: 'Users', href: '/admin/users' }, { text: user.name }] },
    body,
  )
}

async function userOfPath(w: WebRequest): Promise<User> {
  return findUserForAdmin(w.ctx, textOf(w.params.username))
}

/** Runs a state change through the users' service and goes back to the user's page with its notice, or its refusal. */
async function changeUser(w: WebRequest, change: (user: User) => Promise<string | { alert: string }>) {
  const user = await userOfPath(w)
  try {
    const outcome = await change(user)
    if (typeof outcome === 'string') await w.flash('notice', outcome)
    else await w.flash('alert', outcome.alert)
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    await w.flash('alert', refusalOf(error).messages.join(' '))
  }
  return w.redirect(adminUserPath(user))
}

async function impersonate(w: WebRequest) {
  const user = await userOfPath(w)
  const refusal = impersonationRefusal(w.ctx, user, w.impersonatorId !== null)
  if (refusal) {
    await w.flash('alert', refusal)
    return w.redirect(adminUserPath(user))
  }
  const admin = w.ctx.caller.user!
  w.ctx.log.info(
    { impersonator: admin.username, username: user.username },
    `User ${admin.username} has started impersonating ${user.username}`,
  )
  await w.switchUser(user.id, admin.id)
  await w.flash('notice', `You are now impersonating ${user.username}`)
  return w.redirect('/')
}

/** Gives the administrator their own session back, on the page of the user they impersonated. */
async function stopImpersonating(w: WebRequest) {
  const impersonated = w.ctx.caller.user
  const impersonatorId = w.impersonatorId
  if (!impersonated || impersonatorId === null) return w.notFound()
  const impersonator = (await findUserByIdOrUsername(w.ctx.db, String(impersonatorId))) ?? undefined
  if (!canStopImpersonating(impersonator)) return w.notFound()
  w.ctx.log.info(
    { impersonator: impersonator.username, username: impersonated.username },
    `User ${impersonator.username} has stopped impersonating ${impersonated.username}`,
  )
  await w.switchUser(impersonator.id, null)
  return w.redirect(adminUserPath(impersonated))
}

export function registerAdminUserPages(web: WebRouter) {
  web.get('/admin/users', adminPage(showUserList))
  web.get(
    '/admin/users/:username',
    adminPage(async (w) => showUser(w, await userOfPath(w))),
  )
  web.put(
    '/admin/users/:username',
    adminPage((w) =>
      changeUser(w, async (user) => {
        const level = textOf((w.params.user as Record<string, unknown> | undefined)?.access_level)
        if (level !== 'admin' && level !== 'regular') throw new NotFound('Access level')
        await updateUser(w.ctx, user.id, { admin: level === 'admin' })
        return 'User was successfully updated.'
      }),
    ),
  )
  web.put(
    '/admin/users/:username/block',
    adminPage((w) =>
      changeUser(w, async (user) =>
        (await blockUser(w.ctx, user.id)) ? 'Successfully blocked' : { alert: 'Error occurred. User was not blocked' },
      ),
    ),
  )
  web.put(
    '/admin/users/:username/unblock',
    adminPage((w) =>
      changeUser(w, async (user) =>
        (await unblockUser(w.ctx, user.id)) ? 'Successfully unblocked' : { alert: 'Error occurred. User was not unblocked' },
      ),
    ),
  )
  web.put(
    '/admin/users/:username/deactivate',
    adminPage((w) =>
      changeUser(w, async (user) => {
        await deactivateUser(w.ctx, user.id)
        return 'Successfully deactivated'
      }),
    ),
  )
  web.put(
    '/admin/users/:username/activate',
    adminPage((w) =>
      changeUser(w, async (user) => {
        await activateUser(w.ctx, user.id)
        return 'Successfully activated'
      }),
    ),
  )
  web.post('/admin/users/:username/impersonate', adminPage(impersonate))
  // Not for administrators only: the caller is the impersonated user; the session names the administrator.
  web.delete('/admin/impersonation', stopImpersonating)
}
