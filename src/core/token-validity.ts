import type { CredentialKind } from './caller.js'
import type { Settings } from './settings.js'

/** Why a token that exists may not be used: the API answers each with its own message, Git with its access denied. */
export type TokenRefusal = 'expired' | 'revoked' | 'impersonation_disabled'

/** What a token's validity depends on, whichever table it comes from. */
export interface TokenState {
  kind: CredentialKind
  /** A moment after which the token no longer works, as an ISO timestamp or 'YYYY-MM-DD' date. */
  expiresAt: string | null
  revoked: boolean
}

export function isTokenExpired(expiresAt: string | null, now: Date): boolean {
  if (expiresAt === null) return false
  // A date-only expiry ends at 00:00 UTC of that day (GitLab's Expirable compares with the current time).
  const end = expiresAt.length === 10 ? Date.parse(`${expiresAt}T00:00:00.000Z`) : Date.parse(expiresAt)
  return end <= now.getTime()
}

/** Why this token may not be used now, or null when it may; checked in GitLab's order (GL AccessTokenValidationService). */
export function tokenRefusal(token: TokenState, now: Date, settings: Pick<Settings, 'impersonation_enabled'>): TokenRefusal | null {
  if (isTokenExpired(token.expiresAt, now)) return 'expired'
  if (token.revoked) return 'revoked'
  if (token.kind === 'impersonation_token' && !settings.impersonation_enabled) return 'impersonation_disabled'
  return null
}
