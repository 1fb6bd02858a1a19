import { AccessLevel, canRead, meets } from '../../core/access.js'
import { Forbidden, NotFound } from '../../core/errors.js'
import type { ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import { isFeatureAvailable } from '../access/index.js'

/** GL `admin_operations` (ProjectPolicy, maintainer_access): error tracking settings and client keys. */
export function canAdminOperations(access: ProjectAccess): boolean {
  return meets(access, { level: AccessLevel.MAINTAINER })
}

/** GL `read_sentry_issue`: Reporter and up, gone when the project's monitor feature is off for the caller. */
export function canReadErrors(access: ProjectAccess, project: ProjectRow): boolean {
  return meets(access, { level: AccessLevel.REPORTER }) && isFeatureAvailable(access, project, 'monitor')
}

/** GL `update_sentry_issue`: Developer and up, gone when the monitor feature is off for the caller. */
export function canUpdateErrors(access: ProjectAccess, project: ProjectRow): boolean {
  return meets(access, { level: AccessLevel.DEVELOPER }) && isFeatureAvailable(access, project, 'monitor')
}

/** 404 for whoever cannot see the project, 403 for whoever can but is not a Maintainer. */
export function authorizeAdminOperations(access: ProjectAccess) {
  if (!canRead(access)) throw new NotFound('Project')
  if (!canAdminOperations(access)) throw new Forbidden()
}

export function authorizeReadErrors(access: ProjectAccess, project: ProjectRow) {
  if (!canReadErrors(access, project)) throw new Forbidden()
}

export function authorizeUpdateErrors(access: ProjectAccess, project: ProjectRow) {
  if (!canUpdateErrors(access, project)) throw new Forbidden()
}
