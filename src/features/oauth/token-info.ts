import type { Context } from '../../core/context.js'
import { OAuthError } from '../../core/errors.js'
import { digestToken } from '../../core/secrets.js'
import { findApplicationById } from '../applications/index.js'
import type { OAuthTokenRow } from '../../db/schema.js'
import { findAccessTokenByDigest } from './store.js'
import { isTokenAccessible, tokenExpiresAt } from './token.js'

export interface TokenInfo {
  row: OAuthTokenRow
  /** The issuing application's client_id; null for a token issued without a client. */
  applicationUid: string | null
  /** Seconds left, rounded, never below zero (DK Expirable#expires_in_seconds); null when the token never expires. */
  expiresInSeconds: number | null
}

/**
 * GET /oauth/token/info (spec: Token info; GL Oauth::TokenInfoController): a live token's details. A missing,
 * unknown, expired or revoked token is the same 401 with Doorkeeper's generic text and `state: unauthorized`.
 */
export async function describeToken(ctx: Context, value: string | null): Promise<TokenInfo> {
  const [row] = value === null ? [] : await findAccessTokenByDigest(ctx.db, digestToken(value))
  const now = ctx.now()
  if (!row || !isTokenAccessible(row, now)) throw new OAuthError('invalid_token', { extra: { state: 'unauthorized' } })
  const application = row.application_id === null ? undefined : await findApplicationById(ctx.db, row.application_id)
  const expiresAt = tokenExpiresAt(row)
  const expiresInSeconds = expiresAt === null ? null : Math.max(0, Math.round((expiresAt.getTime() - now.getTime()) / 1000))
  return { row, applicationUid: application?.uid ?? null, expiresInSeconds }
}
