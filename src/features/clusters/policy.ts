import { AccessLevel, canRead } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import { isFeatureAvailable } from '../access/index.js'

/** GL ProjectPolicy: clusters go when the infrastructure or repository feature is off for the caller. */
function hasClustersFeature(access: ProjectAccess, project: ProjectRow): boolean {
  return isFeatureAvailable(access, project, 'infrastructure') && isFeatureAvailable(access, project, 'repository')
}

function hasRole(access: ProjectAccess, level: number): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= level)
}

/** GL `read_cluster` (deprecated certificate-based clusters): Developer and up. */
export function canReadClusters(access: ProjectAccess, project: ProjectRow): boolean {
  return canRead(access) && hasClustersFeature(access, project) && hasRole(access, AccessLevel.DEVELOPER)
}

/** GL `add_cluster`, `update_cluster`, `admin_cluster`: Maintainer and up, not on an archived project. */
export function canAdminClusters(access: ProjectAccess, project: ProjectRow): boolean {
  return canRead(access) && hasClustersFeature(access, project) && project.archived !== 1 && hasRole(access, AccessLevel.MAINTAINER)
}
