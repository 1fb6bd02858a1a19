import type { Log } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import { GroupCommitQueue } from '../../db/group-commit.js'
import type { NewOAuthTokenRow, OAuthTokenRow } from '../../db/schema.js'
import { insertAccessToken, revokeAccessToken, revokeGrant } from './store.js'

/**
 * A token to store, and what it uses up: the authorization code it is exchanged for or the token it refreshes.
 * What it uses up is revoked in the same transaction that stores it, and only if nothing revoked it before.
 */
export interface TokenWrite {
  row: NewOAuthTokenRow
  consumes: { grantId: number } | { tokenId: number } | null
  /** When the code or token is marked used (the request's clock). */
  at: string
}

/** `used`: the code or token was used up already, maybe by a write earlier in the same batch; nothing was stored. */
export type TokenWriteOutcome = { status: 'stored'; row: OAuthTokenRow } | { status: 'used' } | { status: 'failed' }

export type TokenQueue = GroupCommitQueue<TokenWrite, TokenWriteOutcome>

const USED: TokenWriteOutcome = { status: 'used' }

/** Applied in order in one transaction: of two writes using up one refresh token, the second finds it revoked. */
async function applyTokenWrites(trx: Db, writes: readonly TokenWrite[]): Promise<TokenWriteOutcome[]> {
  const outcomes: TokenWriteOutcome[] = []
  for (const write of writes) {
    const { consumes, at } = write
    const isAvailable =
      consumes === null ||
      ('tokenId' in consumes ? await revokeAccessToken(trx, consumes.tokenId, at) : await revokeGrant(trx, consumes.grantId, at))
    outcomes.push(isAvailable ? { status: 'stored', row: await insertAccessToken(trx, write.row) } : USED)
  }
  return outcomes
}

/**
 * The token endpoint's writes, committed in groups (one fsync for many requests); made once per app instance,
 * `drain` it on shutdown.
 */
export function createTokenQueue(db: Db, log: Log, clock: () => Date): TokenQueue {
  return new GroupCommitQueue<TokenWrite, TokenWriteOutcome>(db, log, clock, {
    apply: applyTokenWrites,
    failed: { status: 'failed' },
    what: 'OAuth tokens',
  })
}
