import { isAdmin, type Caller } from '../../core/caller.js'
import type { Settings } from '../../core/settings.js'

/** Users register their own applications while the instance allows it (setting user_oauth_applications); administrators always. */
export function canRegisterApplications(caller: Caller, settings: Pick<Settings, 'user_oauth_applications'>): boolean {
  if (!caller.user) return false
  return settings.user_oauth_applications || isAdmin(caller)
}
