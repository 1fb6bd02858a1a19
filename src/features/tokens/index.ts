import type { CredentialLookups, FoundToken } from '../../http/authenticate.js'
import { digestToken } from '../../core/secrets.js'
import { findUserByIdOrUsername } from '../users/index.js'
import { findTokenWithUserByDigest, updateTokenLastUsed, userOf } from './store.js'

/** last_used_at is written at most this often per token (GitLab: 10 minutes). */
const LAST_USED_INTERVAL_MS = 10 * 60 * 1000

const lastUsedAt = new WeakMap<FoundToken, string | null>()

/** How the API finds personal and impersonation tokens and sudo targets. */
export const tokenLookups: CredentialLookups = {
  async findAccessToken(db, value) {
    const row = await findTokenWithUserByDigest(db, digestToken(value))
    if (!row) return null
    const found: FoundToken = {
      kind: row.token_impersonation === 1 ? 'impersonation_token' : 'personal_access_token',
      id: row.token_id,
      user: userOf(row),
      scopes: JSON.parse(row.token_scopes) as string[],
      expiresAt: row.token_expires_at,
      revoked: row.token_revoked === 1,
    }
    lastUsedAt.set(found, row.token_last_used_at)
    return found
  },
  findUserByIdOrUsername,
  async recordTokenUse(db, token, now) {
    const previous = lastUsedAt.get(token)
    if (previous && now.getTime() - Date.parse(previous) < LAST_USED_INTERVAL_MS) return
    await updateTokenLastUsed(db, token.id, now.toISOString())
  },
}
