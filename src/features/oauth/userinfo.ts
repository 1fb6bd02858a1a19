import type { Context } from '../../core/context.js'
import { OAuthError } from '../../core/errors.js'
import { digestToken } from '../../core/secrets.js'
import { findUserForAuthentication } from '../users/index.js'
import { userClaims } from './claims.js'
import { parseScopes } from '../../core/scopes.js'
import { findAccessTokenByDigest } from './store.js'
import { tokenExpiresAt } from './token.js'

// Doorkeeper's invalid_token texts by reason (DK config/locales/en.yml doorkeeper.errors.messages.invalid_token).
const INVALID = 'The access token is invalid'
const REVOKED = 'The access token was revoked'
const EXPIRED = 'The access token expired'

/** A token refused by `doorkeeper_authorize!`: 401 invalid_token, with Doorkeeper's `state` in the body. */
function invalidToken(description: string): OAuthError {
  return new OAuthError('invalid_token', { description, extra: { state: 'unauthorized' } })
}

/** A valid token without the scope the endpoint needs (DK ForbiddenTokenResponse): 403, rendered by the route. */
export class MissingScope extends Error {
  constructor(readonly scopes: readonly string[]) {
    super(`Access to this resource requires scope "${scopes.join(' ')}".`)
  }
}

/**
 * GET/POST /oauth/userinfo (doorkeeper-openid_connect UserinfoController): an accessible OAuth token with the
 * `openid` scope, whose owner is an active user, gets `sub` and the userinfo claims for its scopes.
 */
export async function userInfo(ctx: Context, tokenValue: string | null): Promise<Record<string, unknown>> {
  if (tokenValue === null) throw invalidToken(INVALID)
  const [token] = await findAccessTokenByDigest(ctx.db, digestToken(tokenValue))
  if (!token) throw invalidToken(INVALID)
  // Revoked, then expired: the order of DK InvalidTokenResponse.from_access_token.
  if (token.revoked_at !== null) throw invalidToken(REVOKED)
  const expiresAt = tokenExpiresAt(token)
  if (expiresAt !== null && ctx.now().getTime() >= expiresAt.getTime()) throw invalidToken(EXPIRED)
  const scopes = parseScopes(token.scopes)
  if (!scopes.includes('openid')) throw new MissingScope(['openid'])
  // GL resource_owner_from_access_token: User.active.find_by(id:); nobody else has userinfo.
  const [user] = await findUserForAuthentication(ctx.db, token.resource_owner_id)
  if (!user || user.state !== 'active') throw invalidToken(INVALID)
  return { sub: String(user.id), ...(await userClaims(ctx, user, scopes, 'user_info')) }
}
