import { afterAll, beforeAll, expect, test } from 'vitest'
import type { JobState } from '../db/schema.js'
import { contextFor } from '../testing/context.js'
import { startTestServer, type TestServer } from '../testing/server.js'
import { JobWorker, jobHandlers, periodicJobs, pruneFinishedJobs } from './index.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const DAY = 24 * 60 * 60_000

test('finished jobs are pruned after 7 days, failed ones after 90, in batches; waiting and running jobs stay', async () => {
  const db = server.database.db
  const now = new Date('2030-06-01T00:00:00.000Z')
  const ago = (days: number) => new Date(now.getTime() - days * DAY).toISOString()
  const insert = (name: string, state: JobState, finishedDaysAgo: number | null) =>
    db
      .insertInto('jobs')
      .values({
        kind: 'test.prune',
        payload: JSON.stringify({ name }),
        state,
        max_attempts: 5,
        run_at: ago(200),
        created_at: ago(200),
        updated_at: ago(200),
        finished_at: finishedDaysAgo === null ? null : ago(finishedDaysAgo),
      })
      .execute()
  await insert('done long ago', 'done', 8)
  await insert('done lately', 'done', 6)
  await insert('done long ago too', 'done', 30)
  await insert('failed a while ago', 'failed', 30)
  await insert('failed long ago', 'failed', 91)
  await insert('waiting', 'queued', null)
  await insert('running', 'running', null)

  const ctx = contextFor(server, null, now)
  expect(await pruneFinishedJobs(ctx, 1)).toBe(3)
  expect(await pruneFinishedJobs(ctx, 1)).toBe(0)
  const left = await db.selectFrom('jobs').select('payload').where('kind', '=', 'test.prune').orderBy('id').execute()
  expect(left.map((row) => JSON.parse(row.payload).name)).toEqual(['done lately', 'failed a while ago', 'waiting', 'running'])

  // The daily run is a periodic job of the queue itself.
  const worker = new JobWorker({
    db,
    handlers: jobHandlers,
    periodic: periodicJobs,
    context: () => contextFor(server, null),
    clock: () => now,
  })
  expect(await worker.drain()).toBe(1)
  expect(await db.selectFrom('jobs').select(['state', 'unique_key']).where('kind', '=', 'jobs.prune-finished').execute()).toEqual([
    { state: 'done', unique_key: `jobs.prune-finished@${Math.floor(now.getTime() / DAY)}` },
  ])
})
