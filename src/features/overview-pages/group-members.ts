import { AccessLevel } from '../../core/access.js'
import type { NamespaceRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import type { LoadedGroup } from '../access/index.js'
import { canManageMembers, canReadMembers, type MemberSource, type MemberView } from '../members/index.js'
import type { WebRequest } from '../sessions/index.js'
import {
  changeMemberFromForm,
  inviteForm,
  inviteMemberFromForm,
  listedMembers,
  membersTable,
  removeMemberFromForm,
  type MembersView,
  type RefusedMemberForm,
} from '../settings-pages/index.js'
import { groupCrumbs, groupPath, groupSidebar } from './group-frame.js'

// A group's members (GL Groups::GroupMembersController): everyone who may see the members sees them, direct and
// inherited from the groups above; Owners invite an existing user by username, change a direct member's role or expiry
// and remove them, with the project members page's table and forms and through the same members services and rules.

/** The roles a group membership may have, lowest first (GL GroupMember access levels). */
const GROUP_ROLES: readonly number[] = [
  AccessLevel.GUEST,
  AccessLevel.PLANNER,
  AccessLevel.REPORTER,
  AccessLevel.DEVELOPER,
  AccessLevel.MAINTAINER,
  AccessLevel.OWNER,
]

function sourceOf(loaded: LoadedGroup): MemberSource {
  return { kind: 'group', group: loaded.group, access: loaded.access }
}

function membersPath(group: NamespaceRow): string {
  return `${groupPath(group)}/-/group_members`
}

/**
 * The group's members page. A direct membership is changeable unless it is the group's last Owner (nobody else holds
 * the Owner role here or above), which the members services refuse to change or remove (GL GroupMemberPolicy).
 */
function groupMembersView(loaded: LoadedGroup, members: MemberView[]): MembersView {
  const { group } = loaded
  const owners = members.filter((member) => member.accessLevel === AccessLevel.OWNER)
  const isLastOwner = (member: MemberView) => owners.length === 1 && owners[0].row.id === member.row.id
  return {
    source: sourceOf(loaded),
    path: membersPath(group),
    model: 'group_member',
    roles: GROUP_ROLES,
    isChangeable: (member) => member.row.namespace_id === group.id && !isLastOwner(member),
    origin: (member, groups): Html => {
      if (member.row.namespace_id === group.id) return html`Direct member`
      const from = member.row.namespace_id === null ? undefined : groups.get(member.row.namespace_id)
      return from ? html`Inherited from <a href="${groupPath(from)}">${from.full_path}</a>` : html`Inherited`
    },
  }
}

async function viewOf(w: WebRequest, loaded: LoadedGroup): Promise<{ view: MembersView; members: MemberView[] }> {
  // The source alone decides whom the list shows; the view needs the list to know the last Owner.
  const members = await listedMembers(w, groupMembersView(loaded, []))
  return { view: groupMembersView(loaded, members), members }
}

/** GET /groups/<path>/-/group_members; with `refused`, the refused form with what was typed. */
export async function groupMembersPage(w: WebRequest, loaded: LoadedGroup, refused: RefusedMemberForm | null = null) {
  if (!canReadMembers(sourceOf(loaded))) return w.notFound()
  const { view, members } = await viewOf(w, loaded)
  const token = await w.csrfToken()
  const intro = html`You're inviting members to the <strong>${loaded.group.name}</strong> group.`
  const body = html`<h1>Group members</h1>
    ${canManageMembers(view.source) ? inviteForm(w, view, intro, token, refused) : ''}
    ${await membersTable(w, view, members, token, refused)}`
  return w.render(
    {
      title: `Members · ${loaded.group.full_name}`,
      sidebar: groupSidebar(loaded, 'members'),
      breadcrumbs: [...groupCrumbs(loaded), { text: 'Members' }],
    },
    body,
    refused ? 422 : 200,
  )
}

/** Whether the caller manages the group's members (GL `admin_group_member`, Owners): the forms are theirs alone. */
export function canManageGroupMembers(loaded: LoadedGroup): boolean {
  return canManageMembers(sourceOf(loaded))
}

/** POST /groups/<path>/-/group_members. */
export async function inviteGroupMember(w: WebRequest, loaded: LoadedGroup) {
  const { view } = await viewOf(w, loaded)
  return inviteMemberFromForm(w, view, (refused) => groupMembersPage(w, loaded, refused))
}

/** PUT /groups/<path>/-/group_members/<membership id>. */
export async function changeGroupMember(w: WebRequest, loaded: LoadedGroup, membershipId: string) {
  const { view } = await viewOf(w, loaded)
  return changeMemberFromForm(w, view, membershipId, (refused) => groupMembersPage(w, loaded, refused))
}

/** DELETE /groups/<path>/-/group_members/<membership id>. */
export async function removeGroupMember(w: WebRequest, loaded: LoadedGroup, membershipId: string) {
  const { view } = await viewOf(w, loaded)
  return removeMemberFromForm(w, view, membershipId)
}
