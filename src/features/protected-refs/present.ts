import { accessLevelDescription, type ProtectedBranch, type ProtectedTag, type RefAccessLevel } from './rules.js'
import type { ProtectedBranchJson, ProtectedRefAccessJson, ProtectedTagJson } from './schemas.js'

/** GL Entities::ProtectedRefAccess as CE shows it. */
export function presentRefAccess(level: RefAccessLevel): ProtectedRefAccessJson {
  return { id: level.id, access_level: level.accessLevel, access_level_description: accessLevelDescription(level) }
}

/** GL Entities::ProtectedBranch. */
export function presentProtectedBranch(branch: ProtectedBranch): ProtectedBranchJson {
  return {
    id: branch.id,
    name: branch.name,
    push_access_levels: branch.push.map(presentRefAccess),
    merge_access_levels: branch.merge.map(presentRefAccess),
    allow_force_push: branch.allowForcePush,
    code_owner_approval_required: branch.codeOwnerApprovalRequired,
  }
}

/** GL Entities::ProtectedTag. */
export function presentProtectedTag(tag: ProtectedTag): ProtectedTagJson {
  return { name: tag.name, create_access_levels: tag.create.map(presentRefAccess) }
}
