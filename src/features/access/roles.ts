import { AccessLevel, canRead, meets, type Access, type Requirement } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { Forbidden, NotFound } from '../../core/errors.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { findGroupRole, findProjectRoles, hasMembershipBelow } from './store.js'

// The caller's roles on a project or group: visibility × membership with inheritance × admin × tier.

/** The caller's view of one project: the effective role and the direct and inherited ones it comes from. */
export interface ProjectAccess extends Access {
  /** Direct membership role, null when none. */
  projectLevel: number | null
  /** Highest role inherited from the groups above, null when none. */
  groupLevel: number | null
}

/** Project abilities by the role they need (GitLab ProjectPolicy). */
export const ProjectAbility = {
  admin_project: { level: AccessLevel.MAINTAINER },
  admin_project_member: { level: AccessLevel.MAINTAINER },
  manage_owners: { level: AccessLevel.OWNER },
  change_visibility_level: { level: AccessLevel.OWNER },
  change_namespace: { level: AccessLevel.OWNER },
  archive_project: { level: AccessLevel.OWNER },
  remove_project: { level: AccessLevel.OWNER },
  manage_resource_access_tokens: { level: AccessLevel.MAINTAINER },
} satisfies Record<string, Requirement>
export type ProjectAbilityName = keyof typeof ProjectAbility

/** Group abilities by the role they need (GitLab GroupPolicy). */
export const GroupAbility = {
  admin_group: { level: AccessLevel.OWNER },
  admin_group_member: { level: AccessLevel.OWNER },
  remove_group: { level: AccessLevel.OWNER },
  create_subgroup: { level: AccessLevel.MAINTAINER },
  // GL GroupPolicy: group access tokens need `admin_group`.
  manage_resource_access_tokens: { level: AccessLevel.OWNER },
} satisfies Record<string, Requirement>
export type GroupAbilityName = keyof typeof GroupAbility

/**
 * A project's access from the caller's direct and inherited roles, however they were read (for one project,
 * or for a page of them at once).
 */
export function projectAccessFrom(
  ctx: Context,
  project: ProjectRow,
  namespace: NamespaceRow,
  roles: { projectLevel: number | null; groupLevel: number | null },
): ProjectAccess {
  let { projectLevel } = roles
  const { groupLevel } = roles
  // The owner of a personal namespace owns its projects (GitLab ProjectPolicy `owner`).
  if (namespace.kind === 'user' && ctx.caller.user && namespace.owner_id === ctx.caller.user.id) projectLevel = AccessLevel.OWNER
  return {
    caller: ctx.caller,
    tier: ctx.config.tier,
    visibilityLevel: project.visibility_level,
    level: Math.max(projectLevel ?? 0, groupLevel ?? 0),
    projectLevel,
    groupLevel,
    descendantAccess: false,
  }
}

export async function projectAccess(ctx: Context, project: ProjectRow, namespace: NamespaceRow): Promise<ProjectAccess> {
  const user = ctx.caller.user
  if (!user) return projectAccessFrom(ctx, project, namespace, { projectLevel: null, groupLevel: null })
  const [roles] = await findProjectRoles(ctx.db, user.id, project.id, namespace.traversal_ids, isoDate(ctx.now()))
  return projectAccessFrom(ctx, project, namespace, { projectLevel: roles?.project_level ?? null, groupLevel: roles?.group_level ?? null })
}

export async function groupAccess(ctx: Context, group: NamespaceRow): Promise<Access> {
  const user = ctx.caller.user
  const access: Access = {
    caller: ctx.caller,
    tier: ctx.config.tier,
    visibilityLevel: group.visibility_level,
    level: 0,
    descendantAccess: false,
  }
  if (!user) return access
  const [role] = await findGroupRole(ctx.db, user.id, group.traversal_ids, isoDate(ctx.now()))
  access.level = role?.level ?? 0
  // Minimal access, or membership of anything inside, lets a user see a group they cannot otherwise see.
  if (!canRead(access)) {
    access.descendantAccess =
      access.level >= AccessLevel.MINIMAL_ACCESS || (await hasMembershipBelow(ctx.db, user.id, group.traversal_ids, isoDate(ctx.now())))
  }
  return access
}

/** Refuses what the caller may not do: 404 when they cannot see the resource, 403 when they can. */
function authorize(access: Access, requirement: Requirement, resource: 'Project' | 'Group') {
  if (!canRead(access)) throw new NotFound(resource)
  if (!meets(access, requirement)) throw new Forbidden()
}

export function canProject(access: ProjectAccess, ability: ProjectAbilityName): boolean {
  return meets(access, ProjectAbility[ability])
}

export function authorizeProject(access: ProjectAccess, ability: ProjectAbilityName) {
  authorize(access, ProjectAbility[ability], 'Project')
}

export function canGroup(access: Access, ability: GroupAbilityName): boolean {
  return meets(access, GroupAbility[ability])
}

export function authorizeGroup(access: Access, ability: GroupAbilityName) {
  authorize(access, GroupAbility[ability], 'Group')
}
