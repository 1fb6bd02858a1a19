import { AccessLevel, meets, tierIncludes, type Access } from '../../core/access.js'
import { isAdmin, type Caller } from '../../core/caller.js'
import type { Tier } from '../../config/index.js'

// Who may see and change webhooks (GL ProjectPolicy and EE GroupPolicy `read_web_hook`/`admin_web_hook`, and the
// global policy for system hooks).

/** A project's hooks: Maintainers and up. */
export function canAdminProjectHooks(access: Access): boolean {
  return meets(access, { level: AccessLevel.MAINTAINER })
}

/** A group's hooks: its Owners, on Premium and up (GL licensed feature `group_webhooks`). */
export function canAdminGroupHooks(access: Access): boolean {
  return meets(access, { level: AccessLevel.OWNER, tier: 'premium' })
}

/** System hooks: administrators. */
export function canAdminSystemHooks(caller: Caller): boolean {
  return isAdmin(caller)
}

/** Group hooks exist at all: GitLab Free has neither their API nor their deliveries. */
export function hasGroupHooks(tier: Tier): boolean {
  return tierIncludes(tier, 'premium')
}
