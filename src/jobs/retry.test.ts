import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { contextFor } from '../testing/context.js'
import { startTestServer, type TestServer } from '../testing/server.js'
import { defineJob, enqueueJob, findJobById, handle, JobWorker, listFailedJobs, retryFailedJob } from './index.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const Flaky = defineJob('test.retry-flaky', Type.Object({ name: Type.String() }), { maxAttempts: 2 })

test('a failed job retried runs again with its attempts counted afresh; only a failed job is retried, once', async () => {
  const db = server.database.db
  let now = new Date('2030-03-01T00:00:00.000Z')
  let shouldFail = true
  const worker = new JobWorker({
    db,
    handlers: [
      handle(Flaky, async () => {
        if (shouldFail) throw new Error('the <remote> is down')
      }),
    ],
    context: () => contextFor(server, null),
    clock: () => now,
    backoff: { baseMs: 1000, maxMs: 1000 },
    pollIntervalMs: 10,
  })
  const id = (await enqueueJob(db, Flaky, { name: 'one' }, { now }))!
  expect(await retryFailedJob(db, id, now)).toBe(false)
  await worker.drain()
  now = new Date(now.getTime() + 2000)
  await worker.drain()
  const failed = await findJobById(db, id)
  expect(failed).toMatchObject({ state: 'failed', attempts: 2, last_error: 'the <remote> is down' })
  expect((await listFailedJobs(db, 10)).map((job) => job.id)).toContain(id)

  now = new Date(now.getTime() + 60_000)
  expect(await retryFailedJob(db, id, now)).toBe(true)
  expect(await retryFailedJob(db, id, now)).toBe(false)
  expect(await findJobById(db, id)).toMatchObject({ state: 'queued', attempts: 0, run_at: now.toISOString(), finished_at: null })
  expect((await listFailedJobs(db, 10)).map((job) => job.id)).not.toContain(id)

  shouldFail = false
  await worker.drain()
  expect(await findJobById(db, id)).toMatchObject({ state: 'done', attempts: 1, last_error: null })
})
