import { AccessLevel, canRead, canUseFeature, FeatureAccess, meets, Visibility, type Access } from '../../../core/access.js'
import { isAdmin, type Caller } from '../../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../../db/schema.js'
import { canProject, type ProjectAccess } from '../roles.js'

/** A group's `project_creation_level` (GL Gitlab::Access project creation levels). */
export const ProjectCreationLevel = { NO_ONE: 0, MAINTAINER: 1, DEVELOPER: 2, ADMINISTRATOR: 3, OWNER: 4 } as const

/** Features that members of a private feature need more than Guest for (GL ProjectFeature::PRIVATE_FEATURES_MIN_ACCESS_LEVEL). */
const REPORTER_FEATURES = new Set(['merge_requests', 'container_registry'])

/** GL ProjectFeature#feature_available?: disabled for all, private for members with the feature's role, else open. */
export function isFeatureAvailable(access: ProjectAccess, project: ProjectRow, feature: string): boolean {
  const level = (project as unknown as Record<string, number>)[`${feature}_access_level`]
  if (level <= FeatureAccess.DISABLED) return false
  if (level >= FeatureAccess.ENABLED) return true
  if (!access.caller.user) return false
  return canUseFeature(access, level, REPORTER_FEATURES.has(feature) ? AccessLevel.REPORTER : AccessLevel.GUEST)
}

/** GL `read_code`: the repository feature, which guests of a private project cannot use. */
export function canReadCode(access: ProjectAccess, project: ProjectRow): boolean {
  if (!canRead(access)) return false
  const level = project.repository_access_level
  if (level <= FeatureAccess.DISABLED) return false
  if (isAdmin(access.caller)) return true
  const needsReporter = project.visibility_level === Visibility.PRIVATE
  if (level === FeatureAccess.PRIVATE || needsReporter) {
    return access.caller.user !== null && access.level >= (needsReporter ? AccessLevel.REPORTER : AccessLevel.GUEST)
  }
  return true
}

/** GL `admin_project`: Maintainer. */
export function canAdminProject(access: ProjectAccess): boolean {
  return canProject(access, 'admin_project')
}

/** GL `read_statistics`: Reporter. */
export function canReadStatistics(access: ProjectAccess): boolean {
  return meets(access, { level: AccessLevel.REPORTER })
}

/** GL `admin_issue`: Planner, or Reporter and up. */
export function canAdminIssues(access: ProjectAccess): boolean {
  if (isAdmin(access.caller)) return canRead(access)
  return canRead(access) && access.caller.user !== null && (access.level === AccessLevel.PLANNER || access.level >= AccessLevel.REPORTER)
}

/** GL `create_merge_request_in`: a signed-in Guest and up, with merge requests and the repository on. */
export function canCreateMergeRequestIn(access: ProjectAccess, project: ProjectRow): boolean {
  if (!meets(access, { level: AccessLevel.GUEST }) || !access.caller.user) return false
  return isFeatureAvailable(access, project, 'merge_requests') && isFeatureAvailable(access, project, 'repository')
}

/** GL `change_repository_storage`: administrators only. */
export function canChangeRepositoryStorage(caller: Caller): boolean {
  return isAdmin(caller)
}

/** GL GroupPolicy `create_projects`: the group's project creation level against the caller's role. */
export function canCreateProjectsInGroup(access: Access, group: NamespaceRow): boolean {
  const { caller } = access
  if (!caller.user) return false
  const level = group.project_creation_level
  if (level === ProjectCreationLevel.NO_ONE) return false
  if (isAdmin(caller)) return true
  if (!canRead(access)) return false
  if (level === ProjectCreationLevel.OWNER) return access.level >= AccessLevel.OWNER
  if (level === ProjectCreationLevel.MAINTAINER) return access.level >= AccessLevel.MAINTAINER
  if (level === ProjectCreationLevel.DEVELOPER) return access.level >= AccessLevel.DEVELOPER
  return false
}

/** GL `transfer_projects`: a Maintainer of a group who may create projects there; the owner of a personal namespace. */
export function canTransferProjectsInto(caller: Caller, access: Access | null, namespace: NamespaceRow): boolean {
  if (namespace.kind === 'user') return isAdmin(caller) || (caller.user !== null && caller.user.id === namespace.owner_id)
  if (!access) return false
  return (isAdmin(access.caller) || access.level >= AccessLevel.MAINTAINER) && canCreateProjectsInGroup(access, namespace)
}

/** GL `read_namespace_via_membership`: a role in the group (or above it), or owning the personal namespace. */
export function canReadNamespaceViaMembership(caller: Caller, access: Access | null, namespace: NamespaceRow): boolean {
  if (isAdmin(caller)) return true
  if (namespace.kind === 'user') return caller.user !== null && caller.user.id === namespace.owner_id
  return access !== null && access.level > AccessLevel.NONE
}
