import { AccessLevel, canRead } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { ProjectAccess } from '../access/index.js'

function hasRole(access: ProjectAccess, level: number): boolean {
  return canRead(access) && (isAdmin(access.caller) || (access.caller.user !== null && access.level >= level))
}

/** GL `read_metrics_dashboard_annotation`: Reporter and up. */
export function canReadAnnotations(access: ProjectAccess): boolean {
  return hasRole(access, AccessLevel.REPORTER)
}

/** GL `admin_metrics_dashboard_annotation`: Developer and up. */
export function canAdminAnnotations(access: ProjectAccess): boolean {
  return hasRole(access, AccessLevel.DEVELOPER)
}
