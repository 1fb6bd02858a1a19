import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { Value } from '@sinclair/typebox/value'
import type { Context, Log } from '../core/context.js'
import type { Db } from '../db/index.js'
import type { JobRow } from '../db/schema.js'
import type { JobHandler, PeriodicJob } from './define.js'
import { JobScheduler } from './scheduler.js'
import { claimJob, markJobDone, markJobFailedAttempt, renewJobLease } from './store.js'

export interface JobWorkerOptions {
  db: Db
  handlers: JobHandler[]
  /** The service Context each job acts with, built when the job starts (current settings); its clock is replaced by the worker's. */
  context: () => Context | Promise<Context>
  /** Enqueued by this worker's scheduler, once per slot across every node. */
  periodic?: PeriodicJob[]
  /** Recorded in `locked_by`; unique per worker. */
  workerId?: string
  clock?: () => Date
  /** Pause between polls that found nothing to do. */
  pollIntervalMs?: number
  /** How long a claim holds without renewal; a worker that died loses its jobs this long after its last renewal. */
  leaseMs?: number
  /** Real time between lease renewals while a handler runs. */
  renewEveryMs?: number
  /** Retry n waits min(baseMs * 2^(n-1), maxMs). */
  backoff?: { baseMs: number; maxMs: number }
  log?: Log
}

const silent: Log = { info() {}, warn() {}, error() {}, debug() {} }

/** The workers polling in this process, so that work enqueued here starts without waiting for the next poll. */
const pollingWorkers = new Set<JobWorker>()

/**
 * Ends the idle wait of this process's workers; call after committing jobs that should start now. Every worker process
 * of `svc serve` runs a worker, so the job starts in the process that enqueued it; other nodes still poll.
 */
export function wakeJobWorkers(): void {
  for (const worker of pollingWorkers) worker.wakeUp()
}

/** Claims and runs jobs of the kinds it has handlers for, one at a time, until stopped. */
export class JobWorker {
  readonly workerId: string
  private readonly db: Db
  private readonly handlers: Map<string, JobHandler>
  private readonly context: () => Context | Promise<Context>
  private readonly scheduler: JobScheduler
  private readonly clock: () => Date
  private readonly pollIntervalMs: number
  private readonly leaseMs: number
  private readonly renewEveryMs: number
  private readonly backoff: { baseMs: number; maxMs: number }
  private readonly log: Log
  private readonly running = new Set<Promise<void>>()
  private loop: Promise<void> | null = null
  private stopping = false
  private wake: (() => void) | null = null
  private woken = false

  constructor(options: JobWorkerOptions) {
    this.db = options.db
    this.handlers = new Map()
    for (const handler of options.handlers) {
      if (this.handlers.has(handler.job.kind)) throw new Error(`two handlers for job kind ${handler.job.kind}`)
      this.handlers.set(handler.job.kind, handler)
    }
    this.context = options.context
    this.scheduler = new JobScheduler(options.db, options.periodic ?? [])
    this.workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
    this.clock = options.clock ?? (() => new Date())
    this.pollIntervalMs = options.pollIntervalMs ?? 1000
    this.leaseMs = options.leaseMs ?? 60_000
    this.renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(this.leaseMs / 3))
    this.backoff = options.backoff ?? { baseMs: 10_000, maxMs: 60 * 60_000 }
    this.log = options.log ?? silent
  }

  /** The wait before the retry that follows failed attempt `attempt` (1-based). */
  retryDelayMs(attempt: number): number {
    return Math.min(this.backoff.baseMs * 2 ** (attempt - 1), this.backoff.maxMs)
  }

  start(): void {
    if (this.loop) return
    this.stopping = false
    pollingWorkers.add(this)
    this.loop = this.poll()
  }

  /** Polls again at once: now if idle, else right after the poll in progress. */
  wakeUp(): void {
    this.woken = true
    this.wake?.()
  }

  /** Stops polling and waits for the job in progress to be recorded. */
  async stop(): Promise<void> {
    this.stopping = true
    pollingWorkers.delete(this)
    this.wake?.()
    await this.loop
    this.loop = null
    await Promise.all([...this.running])
  }

  /** Schedules due periodic jobs, then claims and runs one job; false when none was due. */
  async runOnce(): Promise<boolean> {
    const now = this.clock()
    await this.scheduler.tick(now)
    const row = await claimJob(this.db, {
      kinds: [...this.handlers.keys()],
      workerId: this.workerId,
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs),
    })
    if (!row) return false
    const run = this.run(row)
    this.running.add(run)
    try {
      await run
    } finally {
      this.running.delete(run)
    }
    return true
  }

  /** Runs jobs until none is due; answers how many ran. */
  async drain(): Promise<number> {
    let count = 0
    while (await this.runOnce()) count += 1
    return count
  }

  private async poll(): Promise<void> {
    while (!this.stopping) {
      let ran = false
      try {
        ran = await this.runOnce()
      } catch (error) {
        this.log.error({ err: error }, 'job poll failed')
      }
      if (!ran && !this.stopping) await this.sleep()
    }
  }

  private sleep(): Promise<void> {
    if (this.woken) {
      this.woken = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollIntervalMs)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = done
    })
  }

  private async run(row: JobRow): Promise<void> {
    const job = { id: row.id, kind: row.kind, attempt: row.attempts }
    // A job reclaimed after its lease ran out counts that run as an attempt: a job that kills its worker ends failed.
    if (row.attempts > row.max_attempts) {
      await this.recordFailure(row, 'the worker running the last attempt stopped before finishing')
      return
    }
    const handler = this.handlers.get(row.kind)
    const abort = new AbortController()
    const renewal = setInterval(() => {
      const now = this.clock()
      renewJobLease(this.db, row.id, this.workerId, new Date(now.getTime() + this.leaseMs), now)
        .then((held) => {
          if (!held) abort.abort(new Error('lease lost'))
        })
        .catch((error: unknown) => this.log.warn({ err: error, job }, 'job lease renewal failed'))
    }, this.renewEveryMs)
    renewal.unref()
    try {
      if (!handler) throw new Error(`no handler for job kind ${row.kind}`)
      const payload: unknown = JSON.parse(row.payload)
      if (!Value.Check(handler.job.schema, payload)) throw new Error(`invalid payload for job ${row.kind}`)
      await handler.run({ ...(await this.context()), now: this.clock, job, signal: abort.signal }, payload)
      clearInterval(renewal)
      if (!(await markJobDone(this.db, row.id, this.workerId, this.clock()))) {
        this.log.warn({ job }, 'job finished after its lease passed to another worker; result not recorded')
      }
    } catch (error) {
      clearInterval(renewal)
      const message = error instanceof Error ? error.message : String(error)
      this.log.warn({ err: error, job }, 'job attempt failed')
      await this.recordFailure(row, message)
    }
  }

  private async recordFailure(row: JobRow, message: string): Promise<void> {
    const now = this.clock()
    const runAt = row.attempts >= row.max_attempts ? null : new Date(now.getTime() + this.retryDelayMs(row.attempts))
    if (!(await markJobFailedAttempt(this.db, row.id, this.workerId, message, runAt, now))) {
      this.log.warn({ job: { id: row.id, kind: row.kind } }, 'job failed after its lease passed to another worker; failure not recorded')
    }
  }
}
