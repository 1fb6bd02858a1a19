import type { Db } from '../db/index.js'
import type { PeriodicJob } from './define.js'
import { enqueueJob } from './enqueue.js'

/**
 * Enqueues each periodic job once per slot (`floor(now / everyMs)`), keyed `<kind>@<slot>`: any number of
 * nodes may schedule the same slot and one job results.
 */
export class JobScheduler {
  private readonly lastSlots = new Map<string, number>()

  constructor(
    private readonly db: Db,
    private readonly periodic: PeriodicJob[],
  ) {}

  /** Enqueues the jobs whose current slot this scheduler has not enqueued yet; answers how many new rows it wrote. */
  async tick(now: Date): Promise<number> {
    let enqueued = 0
    for (const { job, everyMs, payload } of this.periodic) {
      const slot = Math.floor(now.getTime() / everyMs)
      if (this.lastSlots.get(job.kind) === slot) continue
      const id = await enqueueJob(this.db, job, payload, { uniqueKey: `${job.kind}@${slot}`, runAt: new Date(slot * everyMs), now })
      this.lastSlots.set(job.kind, slot)
      if (id !== null) enqueued += 1
    }
    return enqueued
  }
}
