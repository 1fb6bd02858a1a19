import type { Change } from '../../core/changes.js'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'

export type { Change, FieldChanges } from '../../core/changes.js'

type Teller = (ctx: Context, trx: Db, change: Change) => Promise<void>

/** Who tells the outside of a change: each queues what it sends in the change's transaction. */
const tellers: Teller[] = []

/**
 * Adds who tells the outside of changes, from the composition root (app.ts): tellers read the features that make
 * changes (a webhook payload names the member's role, the alert's status…), so this feature cannot import them.
 */
export function addTeller(teller: Teller): void {
  if (!tellers.includes(teller)) tellers.push(teller)
}

/**
 * Hands a change to everyone who tells the outside of it (webhook deliveries, e-mail notifications). Call it inside
 * the transaction `trx` of the change, after the change is written: what they queue commits or rolls back with it.
 */
export async function noticeChange(ctx: Context, trx: Db, change: Change): Promise<void> {
  for (const tell of tellers) await tell(ctx, trx, change)
}
