import type { ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import { isFeatureAvailable } from '../projects/policy.js'

/** GL `read_merge_request`: the project's merge requests feature is available to the caller. */
export function canReadMergeRequests(access: ProjectAccess, project: ProjectRow): boolean {
  return isFeatureAvailable(access, project, 'merge_requests')
}
