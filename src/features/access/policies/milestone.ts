import { canRead } from '../../../core/access.js'
import type { ProjectRow } from '../../../db/schema.js'
import type { ProjectAccess } from '../roles.js'
import { canAdminIssues, isFeatureAvailable } from './project.js'

/** GL ProjectPolicy: milestones go with issues or merge requests; with both off there are none to see or change. */
function hasMilestoneFeature(access: ProjectAccess, project: ProjectRow): boolean {
  return isFeatureAvailable(access, project, 'issues') || isFeatureAvailable(access, project, 'merge_requests')
}

/** GL `read_milestone`: whoever can see the project, while issues or merge requests are available to them. */
export function canReadMilestones(access: ProjectAccess, project: ProjectRow): boolean {
  return canRead(access) && hasMilestoneFeature(access, project)
}

/** GL `admin_milestone`: Planner, Reporter and up (and administrators); not on an archived project. */
export function canAdminMilestones(access: ProjectAccess, project: ProjectRow): boolean {
  return canAdminIssues(access) && project.archived !== 1 && hasMilestoneFeature(access, project)
}
