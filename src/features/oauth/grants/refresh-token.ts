import type { Context } from '../../../core/context.js'
import { OAuthError } from '../../../core/errors.js'
import { digestToken } from '../../../core/secrets.js'
import type { OAuthTokenRow } from '../../../db/schema.js'
import { authenticateClient, type ClientCredentials } from '../client-authentication.js'
import { missingParameter, presentParam, stringParam, type OAuthParams } from '../params.js'
import { parseScopes } from '../../../core/scopes.js'
import { findAccessTokenByRefreshDigest, findGrantById } from '../store.js'
import type { TokenQueue } from '../token-queue.js'
import { createAccessToken, withIdToken, type IssuedToken } from '../token.js'

/**
 * The scopes of the new token: the requested ones when a `scope` is sent, which must all be among the old token's
 * (DK ScopeChecker.valid? with the refresh token's scopes as the server's), else the old token's.
 */
function refreshedScopes(params: OAuthParams, token: OAuthTokenRow): string[] {
  const granted = parseScopes(token.scopes)
  const requested = presentParam(params, 'scope')
  if (requested === null) return granted
  const scopes = [...new Set(parseScopes(requested))]
  if (/[\n\r\t]/.test(requested) || !scopes.every((scope) => granted.includes(scope))) throw new OAuthError('invalid_scope')
  return scopes
}

/**
 * The redirect URI of a refresh, when sent, must be the original authorization request's (spec: States and
 * transitions; spec/README.md decided difference); when absent it is not asked for, so clients that omit it work.
 */
async function checkRedirectUri(ctx: Context, params: OAuthParams, token: OAuthTokenRow) {
  const redirectUri = stringParam(params, 'redirect_uri')
  if (redirectUri === null) return
  const grant = token.grant_id === null ? undefined : await findGrantById(ctx.db, token.grant_id)
  if (!grant || grant.redirect_uri !== redirectUri) throw new OAuthError('invalid_grant')
}

/**
 * grant_type=refresh_token, checked in Doorkeeper's order (spec/gitlab-behaviour-auth.md §3.4). The old access
 * and refresh tokens are revoked now and a new pair issued for the same code and lifetime (spec: States and
 * transitions, "replaced"); using an old refresh token again is invalid_grant.
 */
export async function refreshAccessToken(
  ctx: Context,
  tokens: TokenQueue,
  params: OAuthParams,
  credentials: ClientCredentials | null,
): Promise<IssuedToken> {
  const value = stringParam(params, 'refresh_token')
  if (value === null) throw missingParameter('refresh_token')
  const [token] = await findAccessTokenByRefreshDigest(ctx.db, digestToken(value))
  if (!token || token.revoked_at !== null) throw new OAuthError('invalid_grant')

  const application = credentials ? await authenticateClient(ctx.db, credentials) : null
  if (credentials && !application) throw new OAuthError('invalid_client')
  // A token issued to an application is refreshed only by that application (RFC 6749 §6).
  if (token.application_id !== null && application?.id !== token.application_id) throw new OAuthError('invalid_grant')
  await checkRedirectUri(ctx, params, token)
  const scopes = refreshedScopes(params, token)

  // Two refreshes with one token racing: the one that revokes it wins.
  const issued = await createAccessToken(tokens, {
    applicationId: token.application_id,
    userId: token.resource_owner_id,
    scopes,
    grantId: token.grant_id,
    previousTokenId: token.id,
    expiresIn: token.expires_in,
    withRefreshToken: true,
    at: ctx.now(),
    consumes: { tokenId: token.id },
  })
  if (!issued) throw new OAuthError('invalid_grant')
  // The ID token's audience is the token's application, which is the authenticated client when there is one.
  const clientId = token.application_id === null ? null : (application?.uid ?? null)
  return withIdToken(ctx, issued, { clientId, nonce: null, scopes })
}
