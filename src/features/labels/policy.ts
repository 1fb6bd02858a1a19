import { AccessLevel, canRead, type Access } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import { Forbidden } from '../../core/errors.js'

/** GL `read_label`: whoever can see the project or group. */
export function canReadLabels(access: Access): boolean {
  return canRead(access)
}

/** GL `admin_label` on a project or a group (ProjectPolicy, GroupPolicy): Planner, or Reporter and up. */
export function canAdminLabels(access: Access): boolean {
  if (!canRead(access)) return false
  if (isAdmin(access.caller)) return true
  return access.caller.user !== null && (access.level === AccessLevel.PLANNER || access.level >= AccessLevel.REPORTER)
}

/** GL `authorize!`: 403 "Forbidden" when refused, whatever the caller can see. */
export function authorizeAdminLabels(access: Access) {
  if (!canAdminLabels(access)) throw new Forbidden()
}
