import { parseScopes } from '../../core/scopes.js'
import type { IssuedToken } from './token.js'
import type { TokenInfo } from './token-info.js'

/** The contract's token type (spec: Token response, token_type 'bearer'); OAuth clients compare it case-insensitively. */
const TOKEN_TYPE = 'bearer'

function unixSeconds(timestamp: string): number {
  return Math.floor(Date.parse(timestamp) / 1000)
}

/**
 * The token response in Doorkeeper's field order (DK TokenResponse#body, then doorkeeper-openid_connect's
 * `id_token`); blank fields are left out, as Doorkeeper drops them.
 */
export function presentTokenResponse(issued: IssuedToken) {
  const { row } = issued
  const body: Record<string, string | number> = { access_token: issued.accessToken, token_type: TOKEN_TYPE }
  if (row.expires_in !== null) body.expires_in = row.expires_in
  if (issued.refreshToken !== null) body.refresh_token = issued.refreshToken
  if (row.scopes !== '') body.scope = row.scopes
  body.created_at = unixSeconds(row.created_at)
  if (issued.idToken !== null) body.id_token = issued.idToken
  return body
}

/**
 * Token info in Doorkeeper's order (DK AccessTokenMixin#as_json) with GitLab's deprecated aliases appended
 * (GL Oauth::TokenInfoController: `scopes`, `expires_in_seconds`).
 */
export function presentTokenInfo(info: TokenInfo) {
  const scopes = parseScopes(info.row.scopes)
  return {
    resource_owner_id: info.row.resource_owner_id,
    scope: scopes,
    expires_in: info.expiresInSeconds,
    application: { uid: info.applicationUid },
    created_at: unixSeconds(info.row.created_at),
    scopes,
    expires_in_seconds: info.expiresInSeconds,
  }
}
