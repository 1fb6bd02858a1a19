import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Db } from '../db/index.js'
import type { JobDefinition } from './define.js'
import { insertJob } from './store.js'

export interface EnqueueOptions {
  /** Not before this time; default `now`. */
  runAt?: Date
  /** At most one job ever holds this key; enqueueing it again does nothing. */
  uniqueKey?: string
  /** The caller's clock (ctx.now()); default the system clock. */
  now?: Date
}

/**
 * Enqueues a job on `db`, a connection or the transaction of the action asking for it, so the job exists
 * exactly when the action commits. Answers the job's id, or null when `uniqueKey` was already taken.
 */
export async function enqueueJob<S extends TSchema>(db: Db, job: JobDefinition<S>, payload: Static<S>, options: EnqueueOptions = {}) {
  if (!Value.Check(job.schema, payload)) {
    const first = Value.Errors(job.schema, payload).First()
    throw new Error(`invalid payload for job ${job.kind}: ${first ? `${first.path || '/'} ${first.message}` : 'does not match its schema'}`)
  }
  const now = (options.now ?? new Date()).toISOString()
  return insertJob(db, {
    kind: job.kind,
    payload: JSON.stringify(payload),
    max_attempts: job.maxAttempts,
    run_at: (options.runAt ?? options.now ?? new Date()).toISOString(),
    unique_key: options.uniqueKey ?? null,
    created_at: now,
    updated_at: now,
  })
}
