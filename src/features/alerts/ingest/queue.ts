import type { Log } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { alertBot } from '../bot.js'
import { applySubmissions, type AlertSubmission, type SubmissionOutcome } from './batch.js'

/** Submissions written in one transaction at most. */
const MAX_BATCH = 2000
/** How long the first pending request waits at most for others before their commit starts. */
const GATHER_MILLIS = 2

interface Pending {
  submission: AlertSubmission
  resolve(outcome: SubmissionOutcome): void
}

/**
 * Group commit of webhook alerts: requests queue their parsed alerts, and one transaction at a time writes every
 * pending request's alerts; each request is answered only after that transaction committed, so an answered alert is
 * on disk. A failed batch is written again one request at a time, so that one bad request fails alone.
 */
export class AlertIngestQueue {
  private pending: Pending[] = []
  private running: Promise<void> | null = null
  private scheduled = false
  private botId: Promise<number> | null = null

  constructor(
    private readonly db: Db,
    private readonly log: Log,
    private readonly clock: () => Date,
  ) {}

  /** Stores the submission's alerts with others pending; resolves once they are committed. */
  submit(submission: AlertSubmission): Promise<SubmissionOutcome> {
    return new Promise((resolve) => {
      this.pending.push({ submission, resolve })
      if (this.pending.length >= MAX_BATCH) this.start()
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
    // that brought none, or after GATHER_MILLIS.
    const check = () => {
      if (this.pending.length !== seen && performance.now() - since < GATHER_MILLIS) {
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
    const batch = this.pending.splice(0, MAX_BATCH)
    this.running = this.write(batch).finally(() => {
      this.running = null
      if (this.pending.length > 0) this.schedule()
    })
  }

  private bot(): Promise<number> {
    // The bot user exists once created: one look-up per process (and database).
    this.botId ??= alertBot(this.db, this.clock()).then((user) => user.id)
    this.botId.catch(() => (this.botId = null))
    return this.botId
  }

  private async write(batch: Pending[]) {
    let botId: number
    try {
      botId = await this.bot()
    } catch (error) {
      this.log.error({ err: error }, 'alert bot unavailable')
      for (const entry of batch) entry.resolve({ ok: false })
      return
    }
    try {
      const outcomes = await this.transaction(
        batch.map((entry) => entry.submission),
        botId,
      )
      batch.forEach((entry, n) => entry.resolve(outcomes[n]))
      return
    } catch (error) {
      if (batch.length === 1) {
        this.log.error({ err: error }, 'storing an alert failed')
        batch[0].resolve({ ok: false })
        return
      }
      this.log.warn({ err: error }, 'storing a batch of alerts failed; storing them one by one')
    }
    for (const entry of batch) {
      try {
        entry.resolve((await this.transaction([entry.submission], botId))[0])
      } catch (error) {
        this.log.error({ err: error }, 'storing an alert failed')
        entry.resolve({ ok: false })
      }
    }
  }

  private transaction(submissions: AlertSubmission[], botId: number) {
    const now = this.clock()
    return this.db.transaction().execute((trx) => applySubmissions(trx, submissions, botId, now))
  }
}
