import { createHash } from 'node:crypto'
import type { Context } from '../../../core/context.js'
import { OAuthError } from '../../../core/errors.js'
import { digestToken, secretsEqual } from '../../../core/secrets.js'
import type { OAuthGrantRow } from '../../../db/schema.js'
import { authenticateClient, type ClientCredentials } from '../client-authentication.js'
import { missingParameter, stringParam, type OAuthParams } from '../params.js'
import { parseScopes } from '../../../core/scopes.js'
import { findGrantByDigest, revokeTokensOfGrant } from '../store.js'
import type { TokenQueue } from '../token-queue.js'
import { ACCESS_TOKEN_EXPIRES_IN, createAccessToken, withIdToken, type IssuedToken } from '../token.js'

function isGrantExpired(grant: OAuthGrantRow, now: Date): boolean {
  return Date.parse(grant.created_at) + grant.expires_in * 1000 <= now.getTime()
}

/** A PKCE verifier: 43 to 128 unreserved characters (service-api.md "OAuth 2.0 provider" and Limits; RFC 7636 §4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

/**
 * PKCE (RFC 7636 §4.6): without a verifier the grant must have had no challenge; with one, the verifier must be
 * well formed and the grant must have an S256 challenge equal to base64url(sha256(verifier)), compared in constant
 * time. A verifier that fails any of these is Doorkeeper's invalid_grant (DK validate_code_verifier).
 */
function isCodeVerifierValid(grant: OAuthGrantRow, verifier: string | null): boolean {
  const challenge = grant.code_challenge ?? ''
  if (verifier === null) return challenge === ''
  if (!CODE_VERIFIER.test(verifier)) return false
  if (challenge === '' || grant.code_challenge_method !== 'S256') return false
  return secretsEqual(createHash('sha256').update(verifier).digest('base64url'), challenge)
}

/**
 * grant_type=authorization_code, checked in Doorkeeper's order (spec/gitlab-behaviour-auth.md §3.3): missing
 * parameters, the client, the code, the redirect URI, the PKCE verifier. A code works once: presenting it again
 * revokes every token issued from it (RFC 6749 §4.1.2).
 */
export async function exchangeAuthorizationCode(
  ctx: Context,
  tokens: TokenQueue,
  params: OAuthParams,
  credentials: ClientCredentials | null,
): Promise<IssuedToken> {
  const code = stringParam(params, 'code')
  const redirectUri = stringParam(params, 'redirect_uri')
  const verifier = stringParam(params, 'code_verifier')
  const grant = code === null ? undefined : await findGrantByDigest(ctx.db, digestToken(code))
  if (grant?.code_challenge && verifier === null) throw missingParameter('code_verifier')
  if (redirectUri === null) throw missingParameter('redirect_uri')

  const application = await authenticateClient(ctx.db, credentials)
  if (!application) throw new OAuthError('invalid_client')
  if (!grant || grant.application_id !== application.id) throw new OAuthError('invalid_grant')
  const now = ctx.now()
  if (grant.revoked_at !== null) {
    await revokeTokensOfGrant(ctx.db, grant.id, now.toISOString())
    throw new OAuthError('invalid_grant')
  }
  if (isGrantExpired(grant, now)) throw new OAuthError('invalid_grant')
  if (redirectUri !== grant.redirect_uri) throw new OAuthError('invalid_grant')
  if (!isCodeVerifierValid(grant, verifier)) throw new OAuthError('invalid_grant')

  const scopes = parseScopes(grant.scopes)
  // Two exchanges of one code racing: the one that marks it used wins.
  const issued = await createAccessToken(tokens, {
    applicationId: application.id,
    userId: grant.resource_owner_id,
    scopes,
    grantId: grant.id,
    previousTokenId: null,
    expiresIn: ACCESS_TOKEN_EXPIRES_IN,
    withRefreshToken: true,
    at: now,
    consumes: { grantId: grant.id },
  })
  if (!issued) {
    await revokeTokensOfGrant(ctx.db, grant.id, now.toISOString())
    throw new OAuthError('invalid_grant')
  }
  return withIdToken(ctx, issued, { clientId: application.uid, nonce: grant.nonce, scopes })
}
