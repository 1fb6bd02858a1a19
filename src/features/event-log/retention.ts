import type { Context } from '../../core/context.js'
import { deleteEventsCreatedBefore } from './store.js'

/** How long events are kept (spec § Limits: 3 years). */
export const EVENT_RETENTION_YEARS = 3
/** Rows one statement deletes, so a large backlog never holds a long lock (GL PruneOldEventsWorker deletes with a limit). */
export const RETENTION_BATCH_SIZE = 1_000

/** The instant before which events are removed: three calendar years before now. */
export function retentionCutoff(now: Date): Date {
  const cutoff = new Date(now.getTime())
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - EVENT_RETENTION_YEARS)
  return cutoff
}

/**
 * Removes events older than 3 years in bounded batches (spec § Limits); running it again, or on two nodes at
 * once, removes nothing twice. Answers how many events went.
 */
export async function removeExpiredEvents(ctx: Context, batchSize = RETENTION_BATCH_SIZE): Promise<number> {
  const cutoff = retentionCutoff(ctx.now()).toISOString()
  let removed = 0
  for (;;) {
    const count = await deleteEventsCreatedBefore(ctx.db, cutoff, batchSize)
    removed += count
    if (count < batchSize) return removed
    // Let requests in between batches.
    await new Promise((resolve) => setImmediate(resolve))
  }
}
