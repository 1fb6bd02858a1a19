import type { Static, TSchema } from '@sinclair/typebox'
import type { Context } from '../core/context.js'

/** Runs a job gets before it fails for good, unless its definition says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 5

/** What a job is: a kind and the schema of its payload (ids, never objects: STYLE § 9). */
export interface JobDefinition<S extends TSchema = TSchema> {
  kind: string
  schema: S
  maxAttempts: number
}

export function defineJob<S extends TSchema>(kind: string, schema: S, options: { maxAttempts?: number } = {}): JobDefinition<S> {
  return { kind, schema, maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS }
}

/** The running job, beside the service Context its handler acts with. */
export interface JobContext extends Context {
  job: { id: number; kind: string; attempt: number }
  /** Aborted when the worker loses the job's lease: another worker may be running it now. */
  signal: AbortSignal
}

export interface JobHandler {
  job: JobDefinition
  run(ctx: JobContext, payload: unknown): Promise<void>
}

/** What runs a kind; a handler may run twice for one job (a crash between doing and recording), so a second run must change nothing. */
export function handle<S extends TSchema>(job: JobDefinition<S>, run: (ctx: JobContext, payload: Static<S>) => Promise<void>): JobHandler {
  return { job, run: (ctx, payload) => run(ctx, payload as Static<S>) }
}

/** A job enqueued once per slot of `everyMs`, whichever nodes schedule it. */
export interface PeriodicJob {
  job: JobDefinition
  everyMs: number
  payload: unknown
}

export function every<S extends TSchema>(everyMs: number, job: JobDefinition<S>, payload: Static<S>): PeriodicJob {
  return { job, everyMs, payload }
}
