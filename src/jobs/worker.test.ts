import { Type } from '@sinclair/typebox'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../db/index.js'
import { contextFor } from '../testing/context.js'
import { freshDatabase, startTestServer, TEST_DATABASE_URL, type TestServer } from '../testing/server.js'
import { defineJob, enqueueJob, handle, JobWorker, type JobHandler } from './index.js'
import { claimJob, findJobById, markJobDone, markJobFailedAttempt } from './store.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
  await sql`create table job_test_runs (job_id integer not null, name text not null, attempt integer not null)`.execute(db())
  await sql`create table job_test_effects (name text primary key)`.execute(db())
})
afterAll(() => server.close())

const db = () => server.database.db
const SECOND = 1000
const Named = Type.Object({ name: Type.String() })
let kinds = 0

/** A job kind of its own per test, so one test's workers never take another's jobs. */
function newKind(options: { maxAttempts?: number } = {}) {
  kinds += 1
  return defineJob(`test.job-${kinds}`, Named, options)
}

/** A clock that moves only when the test says. */
function manualClock(start = new Date('2030-01-01T00:00:00.000Z')) {
  let now = start.getTime()
  return {
    now: () => new Date(now),
    advance(milliseconds: number) {
      now += milliseconds
    },
  }
}

function workerFor(handlers: JobHandler[], options: { clock: () => Date; workerId?: string; database?: DatabaseHandle; leaseMs?: number }) {
  return new JobWorker({
    db: (options.database ?? server.database).db,
    handlers,
    context: () => contextFor(server, null),
    clock: options.clock,
    workerId: options.workerId,
    leaseMs: options.leaseMs ?? 30 * SECOND,
    backoff: { baseMs: 10 * SECOND, maxMs: 25 * SECOND },
    pollIntervalMs: 10,
  })
}

async function recordRun(database: DatabaseHandle['db'], jobId: number, name: string, attempt: number) {
  await sql`insert into job_test_runs (job_id, name, attempt) values (${jobId}, ${name}, ${attempt})`.execute(database)
}

async function runsOf(name: string): Promise<{ job_id: number; attempt: number }[]> {
  const result = await sql<{
    job_id: number
    attempt: number
  }>`select job_id, attempt from job_test_runs where name = ${name} order by job_id, attempt`.execute(db())
  return result.rows.map((row) => ({ job_id: Number(row.job_id), attempt: Number(row.attempt) }))
}

describe('enqueueing', () => {
  test('a job is enqueued with the transaction of the action: rolled back, no job; committed, one job', async () => {
    const job = newKind()
    const clock = manualClock()
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await enqueueJob(trx, job, { name: 'rolled back' }, { now: clock.now() })
          throw new Error('the action failed')
        }),
    ).rejects.toThrow('the action failed')
    const id = await db()
      .transaction()
      .execute((trx) => enqueueJob(trx, job, { name: 'committed' }, { now: clock.now() }))
    const rows = await db().selectFrom('jobs').selectAll().where('kind', '=', job.kind).execute()
    expect(rows.map((row) => [Number(row.id), JSON.parse(row.payload)])).toEqual([[id, { name: 'committed' }]])
    expect(rows[0]).toMatchObject({ state: 'queued', attempts: 0, max_attempts: 5, run_at: clock.now().toISOString(), last_error: null })
  })

  test('a payload that does not match the schema is refused and nothing is enqueued', async () => {
    const job = newKind()
    await expect(enqueueJob(db(), job, { name: 7 } as unknown as { name: string })).rejects.toThrow(
      `invalid payload for job ${job.kind}: /name`,
    )
    expect(await db().selectFrom('jobs').selectAll().where('kind', '=', job.kind).execute()).toEqual([])
  })

  test('a unique key is taken once', async () => {
    const job = newKind()
    const first = await enqueueJob(db(), job, { name: 'a' }, { uniqueKey: `${job.kind}@1` })
    expect(first).toEqual(expect.any(Number))
    expect(await enqueueJob(db(), job, { name: 'b' }, { uniqueKey: `${job.kind}@1` })).toBeNull()
    expect(await db().selectFrom('jobs').select('id').where('kind', '=', job.kind).execute()).toHaveLength(1)
  })
})

describe('the worker', () => {
  test('runs a job once and marks it done', async () => {
    const job = newKind()
    const clock = manualClock()
    const worker = workerFor([handle(job, async (ctx, payload) => recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt))], {
      clock: clock.now,
      workerId: 'worker-a',
    })
    const id = (await enqueueJob(db(), job, { name: 'once' }, { now: clock.now() }))!
    expect(await worker.drain()).toBe(1)
    expect(await worker.drain()).toBe(0)
    expect(await runsOf('once')).toEqual([{ job_id: id, attempt: 1 }])
    expect(await findJobById(db(), id)).toMatchObject({
      state: 'done',
      attempts: 1,
      lease_until: null,
      locked_by: 'worker-a',
      last_error: null,
      finished_at: clock.now().toISOString(),
    })
  })

  test('one kind has one handler', () => {
    const job = newKind()
    const handler = handle(job, async () => {})
    expect(() => workerFor([handler, handle(job, async () => {})], { clock: () => new Date() })).toThrow(
      `two handlers for job kind ${job.kind}`,
    )
  })

  test('a job waits for its run_at', async () => {
    const job = newKind()
    const clock = manualClock()
    const worker = workerFor([handle(job, (ctx, payload) => recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt))], {
      clock: clock.now,
    })
    await enqueueJob(db(), job, { name: 'later' }, { now: clock.now(), runAt: new Date(clock.now().getTime() + 60 * SECOND) })
    expect(await worker.runOnce()).toBe(false)
    clock.advance(60 * SECOND)
    expect(await worker.runOnce()).toBe(true)
    expect(await runsOf('later')).toHaveLength(1)
  })

  test('a failing job is retried after growing delays, up to a cap, then fails with the last error', async () => {
    const job = newKind({ maxAttempts: 4 })
    const clock = manualClock()
    const worker = workerFor(
      [
        handle(job, async (ctx) => {
          throw new Error(`broken on attempt ${ctx.job.attempt}`)
        }),
      ],
      { clock: clock.now },
    )
    const id = (await enqueueJob(db(), job, { name: 'failing' }, { now: clock.now() }))!
    // 10 s, then 20 s, then the cap of 25 s instead of 40 s.
    for (const [attempt, delay] of [
      [1, 10],
      [2, 20],
      [3, 25],
    ] as const) {
      expect(await worker.runOnce()).toBe(true)
      const row = await findJobById(db(), id)
      expect(row).toMatchObject({ state: 'queued', attempts: attempt, last_error: `broken on attempt ${attempt}`, lease_until: null })
      expect(row?.run_at).toBe(new Date(clock.now().getTime() + delay * SECOND).toISOString())
      clock.advance(delay * SECOND - 1)
      expect(await worker.runOnce()).toBe(false)
      clock.advance(1)
    }
    expect(await worker.runOnce()).toBe(true)
    expect(await findJobById(db(), id)).toMatchObject({
      state: 'failed',
      attempts: 4,
      last_error: 'broken on attempt 4',
      finished_at: clock.now().toISOString(),
    })
    clock.advance(60 * 60 * SECOND)
    expect(await worker.runOnce()).toBe(false)
  })

  test('a job whose worker died is taken again when the lease runs out, and the dead worker cannot record a result', async () => {
    const job = newKind()
    const clock = manualClock()
    const id = (await enqueueJob(db(), job, { name: 'orphan' }, { now: clock.now() }))!
    const claimed = await claimJob(db(), {
      kinds: [job.kind],
      workerId: 'dead-worker',
      now: clock.now(),
      leaseUntil: new Date(clock.now().getTime() + 30 * SECOND),
    })
    expect(claimed).toMatchObject({ id, state: 'running', attempts: 1, locked_by: 'dead-worker' })

    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const isStarted = new Promise<void>((resolve) => (started = resolve))
    const survivor = workerFor(
      [
        handle(job, async (ctx, payload) => {
          started()
          await released
          await recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt)
        }),
      ],
      { clock: clock.now, workerId: 'survivor' },
    )
    // The lease still holds: nobody else takes the job.
    clock.advance(30 * SECOND)
    expect(await survivor.runOnce()).toBe(false)
    clock.advance(1)
    const run = survivor.runOnce()
    await isStarted
    expect(await findJobById(db(), id)).toMatchObject({ state: 'running', attempts: 2, locked_by: 'survivor' })
    // The dead worker wakes up while the survivor runs the job: neither its success nor its failure is written.
    expect(await markJobDone(db(), id, 'dead-worker', clock.now())).toBe(false)
    expect(await markJobFailedAttempt(db(), id, 'dead-worker', 'late', null, clock.now())).toBe(false)
    expect(await findJobById(db(), id)).toMatchObject({ state: 'running', locked_by: 'survivor', last_error: null })
    release()
    expect(await run).toBe(true)
    expect(await findJobById(db(), id)).toMatchObject({ state: 'done', attempts: 2, locked_by: 'survivor' })
    expect(await markJobDone(db(), id, 'dead-worker', clock.now())).toBe(false)
    expect(await runsOf('orphan')).toEqual([{ job_id: id, attempt: 2 }])
  })

  test('a job whose workers keep dying fails once its attempts are used up', async () => {
    const job = newKind({ maxAttempts: 2 })
    const clock = manualClock()
    const id = (await enqueueJob(db(), job, { name: 'killer' }, { now: clock.now() }))!
    for (const workerId of ['dead-1', 'dead-2']) {
      expect(
        await claimJob(db(), { kinds: [job.kind], workerId, now: clock.now(), leaseUntil: new Date(clock.now().getTime() + SECOND) }),
      ).not.toBeNull()
      clock.advance(2 * SECOND)
    }
    const worker = workerFor([handle(job, (ctx, payload) => recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt))], {
      clock: clock.now,
    })
    expect(await worker.runOnce()).toBe(true)
    expect(await findJobById(db(), id)).toMatchObject({
      state: 'failed',
      attempts: 3,
      last_error: 'the worker running the last attempt stopped before finishing',
    })
    expect(await runsOf('killer')).toEqual([])
  })

  test('the lease is renewed while a long handler runs, so no other worker takes the job', async () => {
    const job = newKind()
    let now = new Date('2030-01-01T00:00:00.000Z').getTime()
    const clock = () => new Date(now)
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const slow = new JobWorker({
      db: db(),
      handlers: [handle(job, () => released)],
      context: () => contextFor(server, null),
      clock,
      workerId: 'slow',
      leaseMs: 1000,
      renewEveryMs: 20,
    })
    const id = (await enqueueJob(db(), job, { name: 'slow' }, { now: clock() }))!
    const run = slow.runOnce()
    // Time passes well beyond the first lease; each renewal extends it from the current time.
    for (let step = 0; step < 5; step++) {
      now += 900
      await new Promise((resolve) => setTimeout(resolve, 60))
    }
    const row = await findJobById(db(), id)
    expect(row?.lease_until).toBe(new Date(now + 1000).toISOString())
    const other = workerFor([handle(job, async () => {})], { clock, workerId: 'other' })
    expect(await other.runOnce()).toBe(false)
    release()
    await run
    expect(await findJobById(db(), id)).toMatchObject({ state: 'done', locked_by: 'slow', attempts: 1 })
  })

  test('a handler learns through its signal when another worker took its job, and its result is not recorded', async () => {
    const job = newKind()
    const start = new Date('2030-01-01T00:00:00.000Z').getTime()
    let now = start
    const clock = () => new Date(now)
    let aborted!: () => void
    const sawAbort = new Promise<void>((resolve) => (aborted = resolve))
    const stalled = new JobWorker({
      db: db(),
      handlers: [
        handle(job, async (ctx) => {
          ctx.signal.addEventListener('abort', () => aborted())
          await sawAbort
        }),
      ],
      context: () => contextFor(server, null),
      // Its clock stands still, so a renewal that runs after the others' time moved on cannot extend its lease.
      clock: () => new Date(start),
      workerId: 'stalled',
      leaseMs: 1000,
      renewEveryMs: 20,
    })
    const id = (await enqueueJob(db(), job, { name: 'stolen' }, { now: clock() }))!
    const run = stalled.runOnce()
    await expect.poll(async () => (await findJobById(db(), id))?.locked_by).toBe('stalled')
    // The stalled worker's lease ran out (its renewals did not reach the database in time) and another worker took the job.
    now += 5000
    // On PostgreSQL a claim skips the row while a renewal holds its lock for a moment, so the taker tries until it gets it.
    await expect
      .poll(() => claimJob(db(), { kinds: [job.kind], workerId: 'taker', now: clock(), leaseUntil: new Date(now + 60_000) }))
      .toMatchObject({ id })
    await sawAbort
    expect(await run).toBe(true)
    expect(await findJobById(db(), id)).toMatchObject({ state: 'running', locked_by: 'taker', attempts: 2 })
  })

  test('a handler that fails after its first effect runs again without repeating the effect', async () => {
    const job = newKind()
    const clock = manualClock()
    // The effect is keyed by the payload, so a second run finds it done and changes nothing (STYLE § 9).
    const worker = workerFor(
      [
        handle(job, async (ctx, payload) => {
          await recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt)
          await sql`insert into job_test_effects (name) values (${payload.name}) on conflict (name) do nothing`.execute(ctx.db)
          if (ctx.job.attempt === 1) throw new Error('crashed before recording success')
        }),
      ],
      { clock: clock.now },
    )
    const id = (await enqueueJob(db(), job, { name: 'idempotent' }, { now: clock.now() }))!
    expect(await worker.runOnce()).toBe(true)
    expect(await findJobById(db(), id)).toMatchObject({ state: 'queued', last_error: 'crashed before recording success' })
    clock.advance(10 * SECOND)
    expect(await worker.runOnce()).toBe(true)
    expect(await findJobById(db(), id)).toMatchObject({ state: 'done', attempts: 2, last_error: null })
    expect(await runsOf('idempotent')).toEqual([
      { job_id: id, attempt: 1 },
      { job_id: id, attempt: 2 },
    ])
    const effects = await sql<{ name: string }>`select name from job_test_effects where name = 'idempotent'`.execute(db())
    expect(effects.rows).toHaveLength(1)
  })

  test('two workers on one database, each with its own connections, run each of 50 jobs exactly once', async () => {
    const job = newKind()
    const clock = manualClock()
    const otherNode = await openDatabase(server.config)
    try {
      const handler = handle(job, async (ctx, payload) => {
        await recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt)
        await new Promise((resolve) => setTimeout(resolve, 2))
      })
      const workers = [
        new JobWorker({ db: db(), handlers: [handler], context: () => contextFor(server, null), clock: clock.now, workerId: 'node-1' }),
        new JobWorker({
          db: otherNode.db,
          handlers: [handler],
          context: () => ({ ...contextFor(server, null), db: otherNode.db }),
          clock: clock.now,
          workerId: 'node-2',
        }),
      ]
      const ids: number[] = []
      for (let n = 0; n < 50; n++) ids.push((await enqueueJob(db(), job, { name: 'concurrent' }, { now: clock.now() }))!)
      const counts = await Promise.all(workers.map((worker) => worker.drain()))
      expect(counts[0]! + counts[1]!).toBe(50)
      if (TEST_DATABASE_URL) expect(Math.min(...counts)).toBeGreaterThan(0)
      expect((await runsOf('concurrent')).map((run) => run.job_id)).toEqual(ids)
      const rows = await db().selectFrom('jobs').select(['state', 'attempts']).where('kind', '=', job.kind).execute()
      expect(rows.every((row) => row.state === 'done' && row.attempts === 1)).toBe(true)
    } finally {
      await otherNode.close()
    }
  })

  test('the poll loop keeps going when the database fails and still stops', async () => {
    const job = newKind()
    // A database without the jobs table: every poll fails.
    const empty = await freshDatabase()
    const gone = await openDatabase(empty)
    const errors: unknown[] = []
    const worker = new JobWorker({
      db: gone.db,
      handlers: [handle(job, async () => {})],
      context: () => contextFor(server, null),
      pollIntervalMs: 5,
      log: { info() {}, warn() {}, debug() {}, error: (object) => void errors.push(object) },
    })
    worker.start()
    await expect.poll(() => errors.length).toBeGreaterThan(1)
    await worker.stop()
    await gone.close()
    await empty.drop()
  })

  test('the poll loop runs jobs as they come and stop waits for the job in progress', async () => {
    const job = newKind()
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const worker = workerFor(
      [
        handle(job, async (ctx, payload) => {
          if (payload.name === 'held') await released
          await recordRun(ctx.db, ctx.job.id, payload.name, ctx.job.attempt)
        }),
      ],
      { clock: () => new Date() },
    )
    worker.start()
    const first = (await enqueueJob(db(), job, { name: 'polled' }))!
    await expect.poll(async () => (await findJobById(db(), first))?.state, { timeout: 2000 }).toBe('done')
    const held = (await enqueueJob(db(), job, { name: 'held' }))!
    await expect.poll(async () => (await findJobById(db(), held))?.state, { timeout: 2000 }).toBe('running')
    let stopped = false
    const stopping = worker.stop().then(() => (stopped = true))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(stopped).toBe(false)
    release()
    await stopping
    expect(await findJobById(db(), held)).toMatchObject({ state: 'done' })
    const after = (await enqueueJob(db(), job, { name: 'after stop' }))!
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await findJobById(db(), after)).toMatchObject({ state: 'queued' })
  })
})
