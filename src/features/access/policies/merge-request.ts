import { AccessLevel, canRead } from '../../../core/access.js'
import { isAdmin } from '../../../core/caller.js'
import type { MergeRequestRow, ProjectRow } from '../../../db/schema.js'
import type { ProjectAccess } from '../roles.js'
import { canCreateMergeRequestIn, canReadCode, isFeatureAvailable } from './project.js'

/**
 * GL `read_merge_request`: the merge requests feature is available and the caller may read the code (GL ProjectPolicy
 * prevents it with the repository disabled, and Guests of a private project cannot see merge requests).
 */
export function canReadMergeRequests(access: ProjectAccess, project: ProjectRow): boolean {
  return isFeatureAvailable(access, project, 'merge_requests') && canReadCode(access, project)
}

function isDeveloper(access: ProjectAccess): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.DEVELOPER)
}

/** GL `create_merge_request_from` and `create_merge_request_in` on one project: a Developer who may push there. */
export function canCreateMergeRequest(access: ProjectAccess, project: ProjectRow): boolean {
  return isDeveloper(access) && canCreateMergeRequestIn(access, project) && canReadMergeRequests(access, project)
}

/**
 * GL `create_merge_request_in` as a merge request's target: any signed-in user who can read the project (a public or
 * internal one gives them guest access) and its merge requests.
 */
export function canTargetMergeRequestsAt(access: ProjectAccess, project: ProjectRow): boolean {
  if (!access.caller.user || !canRead(access)) return false
  return canReadMergeRequests(access, project)
}

/** GL `update_merge_request`: Developers and up, or the author or an assignee who can read it. */
export function canUpdateMergeRequest(
  access: ProjectAccess,
  project: ProjectRow,
  mergeRequest: MergeRequestRow,
  assigneeIds: readonly number[],
): boolean {
  const user = access.caller.user
  if (!user || !canReadMergeRequests(access, project)) return false
  return isDeveloper(access) || mergeRequest.author_id === user.id || assigneeIds.includes(user.id)
}

/** GL `set_merge_request_metadata` (`admin_merge_request`): Developers and up. */
export function canSetMergeRequestMetadata(access: ProjectAccess, project: ProjectRow): boolean {
  return canReadMergeRequests(access, project) && isDeveloper(access)
}

/** GL MergeRequest#can_be_merged_by?: may push to the target branch (Developers and up, branches unprotected). */
export function canMerge(access: ProjectAccess, project: ProjectRow): boolean {
  return canReadMergeRequests(access, project) && canPushCode(access, project)
}

/** GL ProjectPolicy `push_code`: Developers and up (administrators anywhere), and never to an archived project. */
export function canPushCode(access: ProjectAccess, project: ProjectRow): boolean {
  return isDeveloper(access) && project.archived !== 1
}

/** GL `destroy_merge_request`: the project's Owner, or an administrator. */
export function canDestroyMergeRequest(access: ProjectAccess): boolean {
  return isAdmin(access.caller) || (access.caller.user !== null && access.level >= AccessLevel.OWNER)
}

/**
 * GL `approve_merge_request` (Free): a member of the project who may update the merge request, while it is open. Whether
 * they approved already is the approval's own check (GL MergeRequest#eligible_for_approval_by?).
 */
export function canApproveMergeRequest(
  access: ProjectAccess,
  project: ProjectRow,
  mergeRequest: MergeRequestRow,
  assigneeIds: readonly number[],
): boolean {
  const isMember = access.projectLevel !== null || access.groupLevel !== null
  if (!isMember || mergeRequest.state !== 'opened') return false
  return canUpdateMergeRequest(access, project, mergeRequest, assigneeIds)
}
