import type { Context } from '../../core/context.js'
import { digestToken } from '../../core/secrets.js'
import { findApplicationById } from '../applications/index.js'
import { authenticateClient, type ClientCredentials } from './client-authentication.js'
import { findAccessTokenByDigest, findAccessTokenByRefreshDigest, revokeAccessToken } from './store.js'

/** How a revocation request ends: done (also for unknown or already dead tokens), or refused to this client. */
export type Revocation = 'revoked' | 'refused'

/**
 * POST /oauth/revoke (RFC 7009; DK TokensController#revoke, spec/gitlab-behaviour-auth.md §3.8). The token is
 * looked up as an access token, then as a refresh token; either way the whole pair is revoked. A token of a
 * confidential application is revoked only by that application. Doorkeeper leaves an expired token as it is,
 * which would keep its refresh token working; svc revokes it, as RFC 7009 §2.1 asks for refresh tokens.
 */
export async function revokeToken(ctx: Context, value: string | null, credentials: ClientCredentials | null): Promise<Revocation> {
  const application = await authenticateClient(ctx.db, credentials)
  // DK validate_presence_of_client, skipped while `ropc_without_client_credentials` is on.
  if (!ctx.settings.ropc_without_client_credentials && !application) return 'refused'
  if (value === null) return 'revoked'
  const digest = digestToken(value)
  const [byAccessToken] = await findAccessTokenByDigest(ctx.db, digest)
  const token = byAccessToken ?? (await findAccessTokenByRefreshDigest(ctx.db, digest))[0]
  if (!token) return 'revoked'
  if (token.application_id !== null) {
    const issuer = await findApplicationById(ctx.db, token.application_id)
    if (issuer?.confidential === 1 && application?.id !== issuer.id) return 'refused'
  }
  if (token.revoked_at === null) await revokeAccessToken(ctx.db, token.id, ctx.now().toISOString())
  return 'revoked'
}
