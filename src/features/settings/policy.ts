import { isAdmin, type Caller } from '../../core/caller.js'
import { Forbidden } from '../../core/errors.js'

/** Instance settings are administrators' alone (GL lib/api/settings.rb: authenticated_as_admin!). */
export function authorizeSettings(caller: Caller) {
  if (!isAdmin(caller)) throw new Forbidden()
}
