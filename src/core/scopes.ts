/**
 * Scopes a personal or impersonation token may carry (spec gitlab-behaviour-auth.md 2.3; GL lib/gitlab/auth.rb
 * all_available_scopes: API, repository, registry, virtual registry, observability, AI features, then admin scopes).
 */
export const AVAILABLE_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'create_runner',
  'manage_runner',
  'k8s_proxy',
  'self_rotate',
  'mcp',
  'mcp_orbit',
  'granular',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'read_virtual_registry',
  'write_virtual_registry',
  'read_observability',
  'write_observability',
  'ai_features',
  'sudo',
  'admin_mode',
  'read_service_ping',
] as const

/** Scopes a project or group access token may carry (GL Gitlab::Auth.resource_bot_scopes: no user or admin scopes). */
export const RESOURCE_BOT_SCOPES = AVAILABLE_SCOPES.filter(
  (scope) => scope !== 'read_user' && scope !== 'sudo' && scope !== 'admin_mode' && scope !== 'read_service_ping',
)

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
