import type { Log } from '../core/context.js'
import type { Db } from './index.js'

export interface GroupCommitOptions<S, O> {
  /** Writes many submissions in the caller's transaction; answers one outcome per submission, in order. */
  apply(trx: Db, submissions: readonly S[], now: Date): Promise<O[]>
  /** The outcome of a submission whose transaction failed. */
  failed: O
  /** What is stored, for log lines ("error events"). */
  what: string
  /** Runs before each batch's transaction, outside it: a look-up with a transaction of its own (the alert bot). */
  prepare?(): Promise<void>
  /** Submissions written in one transaction at most. */
  maxBatch?: number
  /** How long the first pending submission waits at most for others before their commit starts. */
  gatherMillis?: number
}

interface Pending<S, O> {
  submission: S
  resolve(outcome: O): void
}

/**
 * Group commit: requests queue what they have to store, and one transaction at a time writes every pending
 * request's submission; each request is answered only after that transaction committed, so an answered write is on
 * disk. A failed batch is written again one submission at a time, so that one bad submission fails alone.
 */
export class GroupCommitQueue<S, O> {
  private pending: Pending<S, O>[] = []
  private running: Promise<void> | null = null
  private scheduled = false
  private readonly maxBatch: number
  private readonly gatherMillis: number

  constructor(
    private readonly db: Db,
    private readonly log: Log,
    private readonly clock: () => Date,
    private readonly options: GroupCommitOptions<S, O>,
  ) {
    this.maxBatch = options.maxBatch ?? 2000
    this.gatherMillis = options.gatherMillis ?? 2
  }

  /** Queues the submission with the others pending; resolves once it is committed (or failed). */
  submit(submission: S): Promise<O> {
    return new Promise((resolve) => {
      this.pending.push({ submission, resolve })
      if (this.pending.length >= this.maxBatch) this.start()
      else this.schedule()
    })
  }

  /** Writes everything pending, then returns (server shutdown). */
  async drain(): Promise<void> {
    while (this.running || this.pending.length > 0) {
      if (!this.running) this.start()
      await this.running
    }
  }

  private schedule() {
    if (this.scheduled || this.running) return
    this.scheduled = true
    const since = performance.now()
    let seen = -1
    // Requests already read reach the queue within a turn of the event loop: the batch closes at the first turn
    // that brought none, or after gatherMillis.
    const check = () => {
      if (this.pending.length !== seen && performance.now() - since < this.gatherMillis) {
        seen = this.pending.length
        setImmediate(check)
        return
      }
      this.scheduled = false
      this.start()
    }
    setImmediate(check)
  }

  private start() {
    if (this.running || this.pending.length === 0) return
    const batch = this.pending.splice(0, this.maxBatch)
    this.running = this.write(batch).finally(() => {
      this.running = null
      if (this.pending.length > 0) this.schedule()
    })
  }

  private async write(batch: Pending<S, O>[]) {
    try {
      await this.options.prepare?.()
    } catch (error) {
      this.log.error({ err: error }, `storing ${this.options.what} failed`)
      for (const entry of batch) entry.resolve(this.options.failed)
      return
    }
    try {
      const outcomes = await this.transaction(batch.map((entry) => entry.submission))
      batch.forEach((entry, n) => entry.resolve(outcomes[n]))
      return
    } catch (error) {
      if (batch.length === 1) {
        this.log.error({ err: error }, `storing ${this.options.what} failed`)
        batch[0].resolve(this.options.failed)
        return
      }
      this.log.warn({ err: error }, `storing a batch of ${this.options.what} failed; storing them one by one`)
    }
    for (const entry of batch) {
      try {
        entry.resolve((await this.transaction([entry.submission]))[0])
      } catch (error) {
        this.log.error({ err: error }, `storing ${this.options.what} failed`)
        entry.resolve(this.options.failed)
      }
    }
  }

  private transaction(submissions: S[]) {
    const now = this.clock()
    return this.db.transaction().execute((trx) => this.options.apply(trx, submissions, now))
  }
}
