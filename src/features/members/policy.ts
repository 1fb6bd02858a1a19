import { AccessLevel, canRead, tierIncludes, Visibility, type Access } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { canGroup, canProject, type ProjectAccess } from '../access/index.js'

/** A project or a group whose members are managed, as the caller sees it. */
export type MemberSource =
  | { kind: 'project'; project: ProjectRow; namespace: NamespaceRow; access: ProjectAccess }
  | { kind: 'group'; group: NamespaceRow; access: Access }

/**
 * Who may list members: whoever can see the project (ProjectPolicy grants `read_project_member` with guest access,
 * which public and internal projects give every signed-in viewer), or the group, except a private group's
 * non-members (GroupPolicy `can_read_group_member?`).
 */
export function canReadMembers(source: MemberSource): boolean {
  const { access } = source
  if (!access.caller.user || !canRead(access)) return false
  if (source.kind === 'project' || isAdmin(access.caller)) return true
  return !(access.visibilityLevel === Visibility.PRIVATE && access.level === AccessLevel.NONE)
}

/** `admin_project_member` (Maintainer) or `admin_group_member` (Owner). */
export function canManageMembers(source: MemberSource): boolean {
  return source.kind === 'project' ? canProject(source.access, 'admin_project_member') : canGroup(source.access, 'admin_group_member')
}

/**
 * Whether the caller may give or take the Owner role: in a project only Owners may (`manage_owners`); in a group
 * only those with Owner access (GL Members::Groups::CreatorService `cannot_manage_owners?`; admins count as Owners).
 */
export function canManageOwners(source: MemberSource): boolean {
  return source.kind === 'project' ? canProject(source.access, 'manage_owners') : canGroup(source.access, 'admin_group_member')
}

/** The holder of a personal namespace owns its projects: nobody may change or remove that membership (ProjectMemberPolicy). */
export function isPersonalNamespaceHolder(source: MemberSource, userId: number): boolean {
  return source.kind === 'project' && source.namespace.kind === 'user' && source.namespace.owner_id === userId
}

/** Minimal Access exists on Premium and Ultimate, for memberships of top-level groups only (EE Group `minimal_access_role_allowed?`). */
export function allowsMinimalAccess(source: MemberSource): boolean {
  return source.kind === 'group' && source.group.parent_id === null && tierIncludes(source.access.tier, 'premium')
}
