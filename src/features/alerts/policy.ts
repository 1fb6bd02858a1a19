import { AccessLevel, meets, type Access } from '../../core/access.js'
import { Forbidden } from '../../core/errors.js'

/** GL `read_alert_management_alert` (ProjectPolicy): Reporter and up. */
export function canReadAlerts(access: Access): boolean {
  return meets(access, { level: AccessLevel.REPORTER })
}

/** GL `update_alert_management_alert` (ProjectPolicy): Developer and up. */
export function canUpdateAlerts(access: Access): boolean {
  return meets(access, { level: AccessLevel.DEVELOPER })
}

export function authorizeReadAlerts(access: Access) {
  if (!canReadAlerts(access)) throw new Forbidden()
}

export function authorizeUpdateAlerts(access: Access) {
  if (!canUpdateAlerts(access)) throw new Forbidden()
}
