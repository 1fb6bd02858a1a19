import { authorizeAdmin, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'

/**
 * Why the administrator calling may not browse as `user` (GL UsersHelper#can_impersonate_user and
 * impersonation_error_text), or null when they may. Impersonation switched off (`impersonation_enabled`) is a
 * NotFound, as GitLab's `access_denied!` answers 404.
 */
export function impersonationRefusal(ctx: Context, user: User, alreadyImpersonating: boolean): string | null {
  const admin = authorizeAdmin(ctx.caller)
  if (!ctx.settings.impersonation_enabled) throw new NotFound('Impersonation')
  if (alreadyImpersonating) return 'You are already impersonating another user'
  if (user.id === admin.id) return 'You cannot impersonate yourself'
  if (user.state === 'blocked' || user.state === 'ldap_blocked') return 'You cannot impersonate a blocked user'
  if (user.password_expires_at !== null && Date.parse(user.password_expires_at) <= ctx.now().getTime()) {
    return 'You cannot impersonate a user with an expired password'
  }
  if (user.bot === 1) return 'You cannot impersonate an internal user'
  // Only active users' sessions count (sessions end with a deactivated user's access).
  if (user.state !== 'active') return 'You cannot impersonate a user who cannot log in'
  return null
}

/**
 * Whether the administrator behind an impersonation may have their own session back (GL
 * Admin::ImpersonationsController#authenticate_impersonator!): still an administrator, and not blocked.
 */
export function canStopImpersonating(impersonator: User | undefined): impersonator is User {
  return impersonator !== undefined && impersonator.admin === 1 && impersonator.state !== 'blocked' && impersonator.state !== 'ldap_blocked'
}
