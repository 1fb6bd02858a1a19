import { AccessLevel, canRead, meets, type Access } from '../../../core/access.js'
import { Forbidden, NotFound } from '../../../core/errors.js'

/** GL `admin_operations` (ProjectPolicy, maintainer_access): managing alert integrations and seeing their keys. */
export function canAdminOperations(access: Access): boolean {
  return meets(access, { level: AccessLevel.MAINTAINER })
}

/** Sending a test alert from the settings page: Developer and up (the contract's alert webhook rules). */
export function canSendTestAlert(access: Access): boolean {
  return meets(access, { level: AccessLevel.DEVELOPER })
}

/** 404 for whoever cannot see the project, 403 for whoever can but may not manage its integrations. */
export function authorizeAdminOperations(access: Access) {
  if (!canRead(access)) throw new NotFound('Project')
  if (!canAdminOperations(access)) throw new Forbidden()
}
