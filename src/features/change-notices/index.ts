import type { Change } from '../../core/changes.js'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'

export type { Change, FieldChanges } from '../../core/changes.js'

type Teller = (ctx: Context, trx: Db, change: Change) => Promise<void>

/** Who tells the outside of a change: each queues what it sends in the change's transaction. */
const tellers: Teller[] = []

/**
 * Hands a change to everyone who tells the outside of it (webhook deliveries, e-mail notifications). Call it inside
 * the transaction `trx` of the change, after the change is written: what they queue commits or rolls back with it.
 */
export async function noticeChange(ctx: Context, trx: Db, change: Change): Promise<void> {
  for (const tell of tellers) await tell(ctx, trx, change)
}
