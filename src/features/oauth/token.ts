import { randomBytes } from 'node:crypto'
import type { Context } from '../../core/context.js'
import { digestToken } from '../../core/secrets.js'
import type { OAuthTokenRow } from '../../db/schema.js'
import { findUserForAuthentication } from '../users/index.js'
import { createIdToken } from './id-token.js'
import { formatScopes } from '../../core/scopes.js'
import type { TokenQueue, TokenWrite } from './token-queue.js'

/** GitLab's access token lifetime (spec: Limits, "Access token lifetime"; GL doorkeeper.rb `access_token_expires_in 2.hours`). */
export const ACCESS_TOKEN_EXPIRES_IN = 7200

/** A token as the token endpoint hands it out: the stored row and the values only this response ever shows. */
export interface IssuedToken {
  row: OAuthTokenRow
  accessToken: string
  refreshToken: string | null
  idToken: string | null
}

/** Doorkeeper's `:hex` generator (GL doorkeeper.rb `access_token_generator`): 32 random bytes as 64 lower-case hex digits. */
const TOKEN_BYTES = 32

export interface NewAccessToken {
  applicationId: number | null
  userId: number
  scopes: readonly string[]
  grantId: number | null
  previousTokenId: number | null
  expiresIn: number | null
  withRefreshToken: boolean
  at: Date
  /** The authorization code or the token this one replaces, used up as it is stored. */
  consumes: TokenWrite['consumes']
}

/**
 * Stores a new token (only digests of its values) with the other pending requests' tokens and returns it with the
 * values once committed; null when what it would use up was used already.
 */
export async function createAccessToken(tokens: TokenQueue, input: NewAccessToken): Promise<IssuedToken | null> {
  // One draw for both values: each is its own 32 random bytes.
  const random = randomBytes(2 * TOKEN_BYTES)
  const accessToken = random.toString('hex', 0, TOKEN_BYTES)
  const refreshToken = input.withRefreshToken ? random.toString('hex', TOKEN_BYTES) : null
  const at = input.at.toISOString()
  const row = {
    application_id: input.applicationId,
    resource_owner_id: input.userId,
    token_digest: digestToken(accessToken),
    refresh_token_digest: refreshToken === null ? null : digestToken(refreshToken),
    scopes: formatScopes(input.scopes),
    expires_in: input.expiresIn,
    grant_id: input.grantId,
    previous_token_id: input.previousTokenId,
    created_at: at,
  }
  const outcome = await tokens.submit({ row, consumes: input.consumes, at })
  if (outcome.status === 'failed') throw new Error('the token could not be stored')
  return outcome.status === 'used' ? null : { row: outcome.row, accessToken, refreshToken, idToken: null }
}

/** The moment a token stops working, or null when it never does. */
export function tokenExpiresAt(row: Pick<OAuthTokenRow, 'created_at' | 'expires_in'>): Date | null {
  return row.expires_in === null ? null : new Date(Date.parse(row.created_at) + row.expires_in * 1000)
}

/** Whether a token can still be used: not revoked and not expired (DK AccessTokenMixin#accessible?). */
export function isTokenAccessible(row: Pick<OAuthTokenRow, 'created_at' | 'expires_in' | 'revoked_at'>, now: Date): boolean {
  const expiresAt = tokenExpiresAt(row)
  return row.revoked_at === null && (expiresAt === null || expiresAt.getTime() > now.getTime())
}

/**
 * Adds the OpenID Connect ID token to a token whose scopes include `openid`, as doorkeeper-openid_connect's
 * TokenResponse does for every grant; it needs an audience, so a token issued without a client gets none.
 */
export async function withIdToken(
  ctx: Context,
  issued: IssuedToken,
  input: { clientId: string | null; nonce: string | null; scopes: readonly string[] },
): Promise<IssuedToken> {
  if (!input.scopes.includes('openid') || input.clientId === null) return issued
  const [user] = await findUserForAuthentication(ctx.db, issued.row.resource_owner_id)
  if (!user) return issued
  // GL doorkeeper_openid_connect.rb `auth_time_from_resource_owner`: the user's current sign-in.
  const authTime = user.current_sign_in_at === null ? ctx.now() : new Date(user.current_sign_in_at)
  const idToken = await createIdToken(ctx, { user, clientId: input.clientId, nonce: input.nonce, scopes: input.scopes, authTime })
  return { ...issued, idToken }
}
