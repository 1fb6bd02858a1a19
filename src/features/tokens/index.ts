import type { CredentialLookups, FoundToken } from '../../http/authenticate.js'
import { digestToken } from '../../core/secrets.js'
import { isoDate } from '../../core/time.js'
import { findUserByIdOrUsername } from '../users/index.js'
import { findUserForAuthentication } from '../users/index.js'
import { findTokenForAuthentication, findTokenIdsRotatedFrom, revokeActiveTokens, updateTokenUse } from './store.js'

export {
  botTokenProblem,
  createOwnPersonalAccessToken,
  ensureRootToken,
  findTokenOfUsers,
  issueBotToken,
  issuePersonalAccessToken,
  listOwnActiveTokens,
  listTokensOfUsers,
  personalTokenFormOptions,
  revokeOwnPersonalAccessToken,
  revokeToken,
  rotateToken,
  ROOT_TOKEN_SCOPES,
  type BotTokenInput,
  type NewToken,
  type PersonalTokenFormOptions,
} from './service.js'
export { presentToken } from './present.js'

/** last_used_at is written at most this often per token (GL LastUsedService::LAST_USED_AT_TIMEOUT). */
const LAST_USED_INTERVAL_MS = 10 * 60 * 1000
/** A new client IP is recorded at most this often (GL LastUsedService::LAST_USED_IP_TIMEOUT). */
const LAST_USED_IP_INTERVAL_MS = 60 * 1000
/** GL LastUsedService::NUM_IPS_TO_STORE. */
const LAST_USED_IPS_KEPT = 5

interface UseRecord {
  /** When the token was last recorded as used, in milliseconds. */
  lastUsedMs: number | null
  ips: string[]
}

const useRecords = new WeakMap<FoundToken, UseRecord>()

/** The tables `findAccessToken` reads. */
export const ACCESS_TOKEN_TABLES = ['personal_access_tokens', 'users']

/** How the API finds personal and impersonation tokens and sudo targets. */
export const tokenLookups: CredentialLookups = {
  async findAccessToken(db, value) {
    const [row] = await findTokenForAuthentication(db, digestToken(value))
    if (!row) return null
    const [user] = await findUserForAuthentication(db, row.user_id)
    if (!user) return null
    const found: FoundToken = {
      kind: row.impersonation === 1 ? 'impersonation_token' : 'personal_access_token',
      id: row.id,
      user,
      scopes: JSON.parse(row.scopes) as string[],
      expiresAt: row.expires_at,
      revoked: row.revoked === 1,
    }
    useRecords.set(found, {
      lastUsedMs: row.last_used_at === null ? null : Date.parse(row.last_used_at),
      ips: JSON.parse(row.last_used_ips) as string[],
    })
    return found
  },
  findUserByIdOrUsername,
  async recordTokenUse(db, token, now, ip) {
    // Only personal and impersonation tokens keep a record of their use; ids of other kinds name other tables' rows.
    if (token.kind !== 'personal_access_token' && token.kind !== 'impersonation_token') return
    const record = useRecords.get(token) ?? { lastUsedMs: null, ips: [] }
    const sinceLastUseMs = record.lastUsedMs === null ? Infinity : now.getTime() - record.lastUsedMs
    const changes: { last_used_at?: string; last_used_ips?: string } = {}
    if (ip !== '' && (record.lastUsedMs === null || (!record.ips.includes(ip) && sinceLastUseMs >= LAST_USED_IP_INTERVAL_MS))) {
      const ips = [...record.ips.filter((known) => known !== ip), ip].slice(-LAST_USED_IPS_KEPT)
      changes.last_used_ips = JSON.stringify(ips)
    }
    if (sinceLastUseMs >= LAST_USED_INTERVAL_MS) changes.last_used_at = now.toISOString()
    if (Object.keys(changes).length > 0) await updateTokenUse(db, token.id, changes)
  },
  /** GL RevokeTokenFamilyService: every still-active token rotated, directly or not, from this one. */
  async revokeTokenFamily(db, token, now) {
    const family: number[] = []
    let generation = await findTokenIdsRotatedFrom(db, [token.id])
    while (generation.length > 0) {
      family.push(...generation)
      generation = await findTokenIdsRotatedFrom(db, generation)
    }
    await revokeActiveTokens(db, family, isoDate(now))
  },
}
/** GL Entities::PersonalAccessToken, which resource access tokens extend. */
export { PersonalAccessTokenJson } from './schemas.js'
