import { Type } from '@sinclair/typebox'
import type { Context } from '../core/context.js'
import { defineJob, every, handle } from './define.js'
import { deleteFinishedJobs } from './store.js'

/** Finished jobs stay this long for inspection, failed ones longer; then they go. */
export const DONE_JOB_RETENTION_MS = 7 * 24 * 60 * 60_000
export const FAILED_JOB_RETENTION_MS = 90 * 24 * 60 * 60_000
const PRUNE_BATCH_SIZE = 1000

export const PruneFinishedJobs = defineJob('jobs.prune-finished', Type.Object({}))

/** Removes finished jobs past their retention in bounded batches; a second run finds nothing more to remove. */
export async function pruneFinishedJobs(ctx: Context, batchSize = PRUNE_BATCH_SIZE): Promise<number> {
  const now = ctx.now().getTime()
  let removed = 0
  for (const [state, keepMs] of [
    ['done', DONE_JOB_RETENTION_MS],
    ['failed', FAILED_JOB_RETENTION_MS],
  ] as const) {
    for (;;) {
      const batch = await deleteFinishedJobs(ctx.db, state, new Date(now - keepMs), batchSize)
      removed += batch
      if (batch < batchSize) break
    }
  }
  return removed
}

/** The job queue's own jobs: periodic runs leave a row per slot, so finished rows are pruned daily. */
export const jobHandlers = [handle(PruneFinishedJobs, async (ctx) => void (await pruneFinishedJobs(ctx)))]
export const periodicJobs = [every(24 * 60 * 60_000, PruneFinishedJobs, {})]
