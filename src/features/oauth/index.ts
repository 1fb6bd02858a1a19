import type { CredentialLookups } from '../../http/authenticate.js'
import { digestToken } from '../../core/secrets.js'
import { findUserForAuthentication } from '../users/index.js'
import { parseScopes } from '../../core/scopes.js'
import { findAccessTokenByDigest } from './store.js'
import { tokenExpiresAt } from './token.js'

/** How the API finds OAuth access tokens (Bearer header or `access_token`). */
/** The tables `findOAuthToken` reads (an application's deletion takes its tokens). */
export const OAUTH_TOKEN_TABLES = ['oauth_access_tokens', 'oauth_applications', 'users']

export const oauthLookups: Pick<CredentialLookups, 'findOAuthToken'> = {
  async findOAuthToken(db, value) {
    const [row] = await findAccessTokenByDigest(db, digestToken(value))
    if (!row) return null
    const [user] = await findUserForAuthentication(db, row.resource_owner_id)
    if (!user) return null
    return {
      kind: 'oauth_token',
      id: row.id,
      user,
      scopes: parseScopes(row.scopes),
      expiresAt: tokenExpiresAt(row)?.toISOString() ?? null,
      revoked: row.revoked_at !== null,
    }
  },
}

export { revokeAuthorization, revokeOwnToken } from './authorized.js'
export { createTokenQueue, type TokenQueue } from './token-queue.js'
