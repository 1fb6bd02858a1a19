import { AccessLevel, canRead, Visibility } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import { isFeatureAvailable } from '../access/index.js'

/** GL ProjectPolicy: environments go when the environments, CI/CD or repository feature is off for the caller. */
function hasEnvironmentsFeature(access: ProjectAccess, project: ProjectRow): boolean {
  return (
    isFeatureAvailable(access, project, 'environments') &&
    isFeatureAvailable(access, project, 'builds') &&
    isFeatureAvailable(access, project, 'repository')
  )
}

/**
 * GL `read_environment`: Reporter and up, or anyone who sees a public or internal project (`public_access`,
 * `public_user_access`); a Guest of a private project is refused.
 */
export function canReadEnvironments(access: ProjectAccess, project: ProjectRow): boolean {
  if (!canRead(access) || !hasEnvironmentsFeature(access, project)) return false
  if (isAdmin(access.caller)) return true
  if (access.caller.user !== null && access.level >= AccessLevel.REPORTER) return true
  return project.visibility_level >= Visibility.INTERNAL
}

/** GL `create_environment`, `update_environment`, `destroy_environment`, `stop_environment`: Developer and up, not on an archived project. */
export function canWriteEnvironments(access: ProjectAccess, project: ProjectRow): boolean {
  if (!canRead(access) || !hasEnvironmentsFeature(access, project) || project.archived === 1) return false
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.DEVELOPER)
}
