import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { contextFor } from '../testing/context.js'
import { client } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'
import { defineJob, enqueueJob, handle, JobWorker } from './index.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

test('/-/metrics counts jobs by kind and state at each scrape', async () => {
  const db = server.database.db
  const Fine = defineJob('test.fine', Type.Object({ n: Type.Integer() }))
  const Broken = defineJob('test.broken', Type.Object({ n: Type.Integer() }), { maxAttempts: 1 })
  await enqueueJob(db, Broken, { n: 1 })
  for (const n of [1, 2, 3]) await enqueueJob(db, Fine, { n })
  const request = client(server.url)

  const before = await request('GET', '/-/metrics')
  expect(before.status).toBe(200)
  expect(before.text).toContain('# HELP svc_jobs Background jobs by kind and state.\n# TYPE svc_jobs gauge\n')
  expect(before.text).toContain('svc_jobs{kind="test.broken",state="queued"} 1\nsvc_jobs{kind="test.fine",state="queued"} 3\n')

  const worker = new JobWorker({
    db,
    handlers: [
      handle(Fine, async () => {}),
      handle(Broken, async () => {
        throw new Error('no')
      }),
    ],
    context: () => contextFor(server, null),
  })
  await worker.runOnce()
  await worker.runOnce()
  const after = await request('GET', '/-/metrics')
  expect(after.text).toMatch(/svc_jobs\{kind="test\.broken",state="failed"\} 1\n/)
  expect(after.text).toMatch(/svc_jobs\{kind="test\.fine",state="done"\} 1\n/)
  expect(after.text).toMatch(/svc_jobs\{kind="test\.fine",state="queued"\} 2\n/)
  expect(after.text).not.toContain('state="queued"} 1\n')
})
