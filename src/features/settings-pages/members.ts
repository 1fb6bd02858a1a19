import { AccessLevel } from '../../core/access.js'
import { isoDate } from '../../core/time.js'
import { Conflict, DomainError, Forbidden, NotFound, RecordNotFound } from '../../core/errors.js'
import type { NamespaceRow } from '../../db/schema.js'
import { errorList, fieldError, refusalOf, type Refusal } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { findNamespaceById, type LoadedProject } from '../access/index.js'
import {
  addMember,
  canManageMembers,
  canManageOwners,
  canReadMembers,
  isPersonalNamespaceHolder,
  listAllMembers,
  removeMember,
  updateMember,
  type MemberSource,
  type MemberView,
} from '../members/index.js'
import { projectPage, projectPageRoutes, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { formOf, givenText, integerOf, PROJECT_ROLES, ROLE_NAMES, refusedAsNotFound, settingsPath, settingsSection } from './shared.js'

// A project's members (GL Projects::ProjectMembersController): everyone who may see the members sees the list, direct
// and inherited; those who manage members (Maintainers and up) invite an existing user by username, change a direct
// member's role or expiry and remove them, through the members feature's services and rules, so the page refuses what
// the members API refuses, in its words.

/** How many members the page lists. */
const MEMBERS_LISTED = 100

/** The members API's attribute names, as a form labels them. */
const ATTRIBUTES = { access_level: 'Access level', expires_at: 'Expires at' }

interface InviteValues {
  username: string
  accessLevel: string
  expiresAt: string
}

/** A refused form: the invitation, or one member's row, with what was typed. */
export type Refused =
  | { form: 'invite'; values: InviteValues; refusal: Refusal }
  | { form: 'member'; memberId: number; values: { accessLevel: string; expiresAt: string }; refusal: Refusal }

/**
 * A members page: whose members it lists (a project's or a group's), where its forms go and how they name their fields,
 * so that a project's and a group's members pages share one table and one invitation form.
 */
export interface MembersView {
  source: MemberSource
  /** The page's path: invitations post to it, a membership's changes go to `<path>/<membership id>`. */
  path: string
  /** The forms' model, as GitLab names it: `project_member` or `group_member`. */
  model: string
  /** The roles a membership of the source may have, lowest first. */
  roles: readonly number[]
  /** Whether the page may change or remove this membership (besides the caller's own rights). */
  isChangeable(member: MemberView): boolean
  /** Where a membership comes from: the source itself, or the group it is inherited from. */
  origin(member: MemberView, groups: Map<number, NamespaceRow>): Html
}

function sourceOf(loaded: LoadedProject): MemberSource {
  return { kind: 'project', ...loaded }
}

function projectMembersView(loaded: LoadedProject): MembersView {
  return {
    source: sourceOf(loaded),
    path: settingsPath(loaded, 'members'),
    model: 'project_member',
    roles: PROJECT_ROLES,
    isChangeable: (member) => member.row.project_id === loaded.project.id,
    origin: (member, groups) => sourceText(loaded, member, groups),
  }
}

/** The roles the caller may give: Owner only for those who may manage Owners (GL Members::BaseService). */
function assignableRoles(view: MembersView): number[] {
  return view.roles.filter((level) => level !== AccessLevel.OWNER || canManageOwners(view.source))
}

/** Whether the caller may change or remove this membership (GL ProjectMemberPolicy): direct, not the namespace holder's. */
function isManageable(view: MembersView, member: MemberView): boolean {
  const { source } = view
  if (!view.isChangeable(member)) return false
  if (!canManageMembers(source) || isPersonalNamespaceHolder(source, member.user.id)) return false
  return member.row.access_level !== AccessLevel.OWNER || canManageOwners(source)
}

function roleOptions(levels: number[], selected: string): Html {
  return html`${levels.map(
    (level) => html`<option value="${level}" ${String(level) === selected ? html`selected` : ''}>${ROLE_NAMES[level]}</option>`,
  )}`
}

/** The invitation form; `intro` says what the user is invited to. */
export function inviteForm(w: WebRequest, view: MembersView, intro: Html, token: string, refused: Refused | null): Html {
  const refusal = refused?.form === 'invite' ? refused.refusal : null
  const values = refused?.form === 'invite' ? refused.values : { username: '', accessLevel: String(AccessLevel.GUEST), expiresAt: '' }
  const errorId = (field: string, id: string) => (refusal?.byField[field] ? ` ${id}_error` : '')
  return settingsSection(
    'invite-members',
    'Invite members',
    intro,
    html`${refusal ? errorList(refusal.messages) : ''}
      <form method="post" action="${view.path}" class="invite-member">
        ${csrfField(token)}
        <div class="field-row">
          <div class="field grow">
            <label for="invite_username">Username</label>
            <input
              type="text"
              id="invite_username"
              name="${view.model}[username]"
              value="${values.username}"
              autocomplete="off"
              required
              aria-describedby="invite_username_help${errorId('user', 'invite_username')}"
            />
            ${fieldError(refusal, 'user', 'invite_username')}
            <p class="help" id="invite_username_help">The username of an existing user, such as <code>jane</code>.</p>
          </div>
          <div class="field">
            <label for="invite_access_level">Select a role</label>
            <select id="invite_access_level" name="${view.model}[access_level]" ${refusal?.byField.access_level ? html`aria-describedby="invite_access_level_error"` : ''}>
              ${roleOptions(assignableRoles(view), values.accessLevel)}
            </select>
            ${fieldError(refusal, 'access_level', 'invite_access_level')}
          </div>
          <div class="field">
            <label for="invite_expires_at">Access expiration date (optional)</label>
            <input
              type="date"
              id="invite_expires_at"
              name="${view.model}[expires_at]"
              value="${values.expiresAt}"
              min="${isoDate(w.ctx.now())}"
              ${refusal?.byField.expires_at ? html`aria-describedby="invite_expires_at_error"` : ''}
            />
            ${fieldError(refusal, 'expires_at', 'invite_expires_at')}
          </div>
        </div>
        <div class="button-row"><button type="submit" class="primary">Invite</button></div>
      </form>`,
  )
}

function sourceText(loaded: LoadedProject, member: MemberView, groups: Map<number, NamespaceRow>): Html {
  if (member.row.project_id === loaded.project.id) return html`Direct member`
  const group = member.row.namespace_id === null ? undefined : groups.get(member.row.namespace_id)
  return group ? html`Inherited from <a href="/groups/${group.full_path}">${group.full_path}</a>` : html`Inherited`
}

function memberRow(view: MembersView, token: string, member: MemberView, groups: Map<number, NamespaceRow>, refused: Refused | null): Html {
  const { user, row } = member
  const who = html`<a href="/${user.username}">${user.name}</a> <span class="muted">@${user.username}</span>
    ${user.bot === 1 ? html`<span class="badge">Bot</span>` : ''}
    ${user.id === view.source.access.caller.user?.id ? html`<span class="badge">It's you</span>` : ''}`
  if (!isManageable(view, member)) {
    return html`<tr id="member_${row.id}">
      <td>${who}</td>
      <td>${view.origin(member, groups)}</td>
      <td>${ROLE_NAMES[member.accessLevel] ?? member.accessLevel}</td>
      <td>${row.expires_at ? html`<time datetime="${row.expires_at}">${row.expires_at}</time>` : html`<span class="muted">No expiration set</span>`}</td>
      <td></td>
    </tr>`
  }
  const formId = `member_form_${row.id}`
  const mine = refused?.form === 'member' && refused.memberId === row.id ? refused : null
  const values = mine?.values ?? { accessLevel: String(row.access_level), expiresAt: row.expires_at ?? '' }
  const action = `${view.path}/${row.id}`
  return html`<tr id="member_${row.id}">
    <td>${who}</td>
    <td>${view.origin(member, groups)}</td>
    <td>
      <label class="visually-hidden" for="${formId}_access_level">Role of ${user.username}</label>
      <select id="${formId}_access_level" name="${view.model}[access_level]" form="${formId}">
        ${roleOptions(assignableRoles(view), values.accessLevel)}
      </select>
      ${fieldError(mine?.refusal ?? null, 'access_level', `${formId}_access_level`)}
    </td>
    <td>
      <label class="visually-hidden" for="${formId}_expires_at">Access expiration date of ${user.username}</label>
      <input type="date" id="${formId}_expires_at" name="${view.model}[expires_at]" value="${values.expiresAt}" form="${formId}" />
      ${fieldError(mine?.refusal ?? null, 'expires_at', `${formId}_expires_at`)}
      ${mine && Object.keys(mine.refusal.byField).length === 0 ? html`<p class="field-error">${mine.refusal.messages.join(', ')}</p>` : ''}
    </td>
    <td class="actions">
      <div class="row-actions">
        <form method="post" action="${action}" id="${formId}">
          ${csrfField(token)}<input type="hidden" name="_method" value="put" />
          <button type="submit" class="small" aria-label="Save the role and expiration of ${user.username}">Save</button>
        </form>
        <form method="post" action="${action}" class="remove-member">
          ${csrfField(token)}<input type="hidden" name="_method" value="delete" />
          <button type="submit" class="small danger" aria-label="Remove ${user.username}">Remove member</button>
        </form>
      </div>
    </td>
  </tr>`
}

/** The groups members are inherited from, by id, to name them. */
async function groupsOf(w: WebRequest, members: MemberView[]): Promise<Map<number, NamespaceRow>> {
  const ids = [...new Set(members.flatMap((member) => (member.row.namespace_id === null ? [] : [member.row.namespace_id])))]
  const rows = await Promise.all(ids.map(async (id) => (await findNamespaceById(w.ctx.db, id))[0]))
  return new Map(rows.filter((row): row is NamespaceRow => row !== undefined).map((row) => [row.id, row]))
}

/** The members the page lists: direct and inherited, up to MEMBERS_LISTED. */
export async function listedMembers(w: WebRequest, view: MembersView): Promise<MemberView[]> {
  return (await listAllMembers(w.ctx, view.source, { showSeatInfo: false, page: 1, perPage: MEMBERS_LISTED })).views
}

/** The members table: each member's role and expiry, and for those the caller may manage, the forms to change or remove them. */
export async function membersTable(
  w: WebRequest,
  view: MembersView,
  members: MemberView[],
  token: string,
  refused: Refused | null,
): Promise<Html> {
  const groups = await groupsOf(w, members)
  return html`<section aria-labelledby="members-heading">
      <h2 id="members-heading">Members (${members.length})</h2>
      <div class="table-box">
        <table class="settings-table members">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Source</th>
              <th scope="col">Role</th>
              <th scope="col">Expiration</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${members.map((member) => memberRow(view, token, member, groups, refused))}
          </tbody>
        </table>
      </div>
    </section>`
}

/** GET /-/project_members; with `refused`, the refused form with what was typed. */
async function membersPage(w: WebRequest, loaded: LoadedProject, refused: Refused | null = null) {
  const view = projectMembersView(loaded)
  if (!canReadMembers(view.source)) return w.notFound()
  const members = await listedMembers(w, view)
  const token = await w.csrfToken()
  const intro = html`You're inviting members to the <strong>${loaded.project.name}</strong> project.`
  const body = html`<h1>Project members</h1>
    ${canManageMembers(view.source) ? inviteForm(w, view, intro, token, refused) : ''}
    ${await membersTable(w, view, members, token, refused)}`
  return renderProjectPage(
    w,
    loaded,
    { title: 'Members', section: 'members', crumbs: [{ text: 'Members' }], status: refused ? 422 : 200 },
    body,
  )
}

/** A page that manages members: the list's readers only see it (GL `authorize_admin_project_member!`). */
function managing(handler: (w: WebRequest, loaded: LoadedProject) => Promise<unknown>) {
  return projectPage(async (w, loaded) => {
    if (!canManageMembers(sourceOf(loaded))) return w.notFound()
    return refusedAsNotFound(w, () => handler(w, loaded))
  })
}

/** An expiry date a form sent: YYYY-MM-DD, or null for none. */
function expiryOf(text: string): string | null {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null
}

/** Shows the members page again with a refused form (and what was typed). */
export type RefusedPage = (refused: Refused) => Promise<unknown>

/** POST /-/project_members or /-/group_members: an existing user, by username, with a role and an optional expiry. */
export async function inviteMemberFromForm(w: WebRequest, view: MembersView, page: RefusedPage) {
  const form = formOf(w, view.model)
  const values: InviteValues = {
    username: (givenText(form, 'username') ?? '').trim().replace(/^@/, ''),
    accessLevel: givenText(form, 'access_level') ?? '',
    expiresAt: givenText(form, 'expires_at') ?? '',
  }
  const refuse = (refusal: Refusal) => page({ form: 'invite', values, refusal })
  const level = integerOf(values.accessLevel)
  if (level === null || !view.roles.includes(level)) {
    return refuse({
      messages: ['Access level is not included in the list'],
      byField: { access_level: ['Access level is not included in the list'] },
    })
  }
  // One user at a time: a list of names would be the API's bulk invitation.
  if (values.username === '' || values.username.includes(','))
    return refuse({ messages: ['User Not Found'], byField: { user: ['User Not Found'] } })
  try {
    await addMember(w.ctx, view.source, { username: values.username, accessLevel: level, expiresAt: expiryOf(values.expiresAt) })
    await w.flash('notice', 'Users were successfully added.')
    return w.redirect(view.path)
  } catch (error) {
    // The members API's 404 "User Not Found" names the user asked for, not this page.
    if (error instanceof NotFound && !(error instanceof RecordNotFound))
      return refuse({ messages: [error.message], byField: { user: [error.message] } })
    // "Member already exists" is about the user named.
    if (error instanceof Conflict) return refuse({ messages: [error.message], byField: { user: [error.message] } })
    if (error instanceof DomainError && !(error instanceof NotFound) && !(error instanceof Forbidden))
      return refuse(refusalOf(error, ATTRIBUTES))
    throw error
  }
}

/** The member a path's `:id` names (a membership id, as GitLab's routes use), among those listed. */
async function findListedMember(w: WebRequest, view: MembersView, membershipId: string): Promise<MemberView | null> {
  const id = integerOf(membershipId)
  const members = await listedMembers(w, view)
  return members.find((member) => member.row.id === id && view.isChangeable(member)) ?? null
}

/** PUT /-/project_members/:id or /-/group_members/:id: a direct member's role and expiry (GL MembershipActions#update). */
export async function changeMemberFromForm(w: WebRequest, view: MembersView, membershipId: string, page: RefusedPage) {
  const member = await findListedMember(w, view, membershipId)
  if (!member) return w.notFound()
  const form = formOf(w, view.model)
  const values = { accessLevel: givenText(form, 'access_level') ?? '', expiresAt: givenText(form, 'expires_at') ?? '' }
  const refuse = (refusal: Refusal) => page({ form: 'member', memberId: member.row.id, values, refusal })
  const level = integerOf(values.accessLevel)
  if (level === null || !view.roles.includes(level)) {
    return refuse({
      messages: ['Access level is not included in the list'],
      byField: { access_level: ['Access level is not included in the list'] },
    })
  }
  const expiresAt = expiryOf(values.expiresAt)
  try {
    await updateMember(w.ctx, view.source, member.user.id, { accessLevel: level, expiresAt })
  } catch (error) {
    if (error instanceof DomainError && !(error instanceof NotFound) && !(error instanceof Forbidden))
      return refuse(refusalOf(error, ATTRIBUTES))
    throw error
  }
  // GitLab's members table says which of the two changed.
  const roleChanged = level !== member.row.access_level
  await w.flash(
    'notice',
    roleChanged || expiresAt === member.row.expires_at ? 'Role updated successfully.' : 'Expiration date updated successfully.',
  )
  return w.redirect(view.path)
}

/** DELETE /-/project_members/:id or /-/group_members/:id (GL MembershipActions#destroy). */
export async function removeMemberFromForm(w: WebRequest, view: MembersView, membershipId: string) {
  const member = await findListedMember(w, view, membershipId)
  if (!member) return w.notFound()
  await removeMember(w.ctx, view.source, member.user.id, { skipSubresources: true, unmodifiedSince: null })
  await w.flash('notice', `User was successfully removed from ${view.source.kind}.`)
  return w.redirect(view.path)
}

/** POST /-/project_members. */
function inviteMember(w: WebRequest, loaded: LoadedProject) {
  return inviteMemberFromForm(w, projectMembersView(loaded), (refused) => membersPage(w, loaded, refused))
}

/** PUT /-/project_members/:id. */
function changeMember(w: WebRequest, loaded: LoadedProject) {
  return changeMemberFromForm(w, projectMembersView(loaded), String(w.params.id ?? ''), (refused) => membersPage(w, loaded, refused))
}

/** DELETE /-/project_members/:id. */
function removeListedMember(w: WebRequest, loaded: LoadedProject) {
  return removeMemberFromForm(w, projectMembersView(loaded), String(w.params.id ?? ''))
}

export function registerMemberPages(web: WebRouter) {
  for (const route of projectPageRoutes('/-/project_members')) {
    web.get(
      route,
      projectPage((w, loaded) => membersPage(w, loaded)),
    )
    web.post(route, managing(inviteMember))
  }
  for (const route of projectPageRoutes('/-/project_members/:id')) {
    web.put(route, managing(changeMember))
    web.route('PATCH', route, managing(changeMember))
    web.delete(route, managing(removeListedMember))
  }
}
