import { SignJWT } from 'jose'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { userClaims } from './claims.js'
import { loadSigningKey, SIGNING_ALGORITHM } from './signing-key.js'

export interface IdTokenInput {
  user: User
  /** The application's uid (client_id): the token's audience. */
  clientId: string
  /** The authorization request's nonce, repeated in the token. */
  nonce: string | null
  /** Granted scopes: claims depend on them. */
  scopes: readonly string[]
  /** When the user authenticated. */
  authTime: Date
}

/** doorkeeper-openid_connect `expiration` (default 120 s; GitLab keeps it). */
export const ID_TOKEN_LIFETIME_SECONDS = 120

/**
 * An OpenID Connect ID token (RS256 JWT) for a grant that includes the `openid` scope: the registered claims
 * (iss, sub, aud, exp, iat, nonce, auth_time) then GitLab's ID-token claims (doorkeeper-openid_connect IdToken).
 */
export async function createIdToken(ctx: Context, input: IdTokenInput): Promise<string> {
  const now = ctx.now()
  const key = await loadSigningKey(ctx)
  const issuedAt = Math.floor(now.getTime() / 1000)
  const payload: Record<string, unknown> = {
    iss: ctx.config.externalUrl,
    sub: String(input.user.id),
    aud: input.clientId,
    exp: issuedAt + ID_TOKEN_LIFETIME_SECONDS,
    iat: issuedAt,
  }
  if (input.nonce !== null && input.nonce !== '') payload.nonce = input.nonce
  payload.auth_time = Math.floor(input.authTime.getTime() / 1000)
  Object.assign(payload, await userClaims(ctx, input.user, input.scopes, 'id_token'))
  return new SignJWT(payload).setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: 'JWT', kid: key.kid }).sign(key.privateKey)
}
