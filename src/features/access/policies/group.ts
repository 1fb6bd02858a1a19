import type { Access } from '../../../core/access.js'
import { isAdmin, type Caller } from '../../../core/caller.js'
import type { NamespaceRow } from '../../../db/schema.js'
import { canGroup } from '../roles.js'

/** A group's `subgroup_creation_level` as stored (GL Gitlab::Access subgroup creation levels). */
export const SUBGROUP_CREATION_LEVELS = { owner: 0, maintainer: 1 } as const

/** GlobalPolicy `create_group`: the user's own flag decides top-level groups. */
export function canCreateTopLevelGroup(caller: Caller): boolean {
  return caller.user !== null && caller.user.can_create_group === 1
}

/** GroupPolicy `create_subgroup`: Owners always, Maintainers when the group's subgroup_creation_level allows them. */
export function canCreateSubgroup(access: Access, group: NamespaceRow): boolean {
  if (canGroup(access, 'admin_group')) return true
  return group.subgroup_creation_level === SUBGROUP_CREATION_LEVELS.maintainer && canGroup(access, 'create_subgroup')
}

/** Statistics and custom attributes are for administrators (GL `can_read_all_resources?`, `read_custom_attribute`). */
export function canReadAllGroups(caller: Caller): boolean {
  return isAdmin(caller)
}
