import { AVAILABLE_SCOPES } from '../tokens/index.js'

/** Scopes that only serve OpenID Connect (the ID token and /oauth/userinfo); they open no API endpoint. */
export const OPENID_SCOPES = ['openid', 'profile', 'email'] as const

/** Every scope an OAuth application may be registered with and a token granted (GL Gitlab::Auth scopes). */
export const OAUTH_SCOPES: readonly string[] = [...AVAILABLE_SCOPES, ...OPENID_SCOPES]

/** Doorkeeper's default scope: what an application or request without scopes gets. */
export const DEFAULT_SCOPE = 'api'

/** Scopes as stored and sent: one space between names (a '+' in a URL is a space). */
export function parseScopes(text: string | null | undefined): string[] {
  return (text ?? '').split(/\s+/).filter((scope) => scope !== '')
}

export function formatScopes(scopes: readonly string[]): string {
  return scopes.join(' ')
}
