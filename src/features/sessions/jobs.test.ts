import { afterAll, beforeAll, expect, test } from 'vitest'
import { periodicJobs } from '../../background.js'
import { defaultSettings } from '../../core/settings.js'
import { enqueueJob } from '../../jobs/index.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { RemoveExpiredSessions, SESSION_SWEEP_INTERVAL_MS } from './jobs.js'
import { startSession } from './service.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

test('an hourly job removes expired sessions and keeps live ones', async () => {
  expect(periodicJobs.filter((p) => p.job === RemoveExpiredSessions).map((p) => p.everyMs)).toEqual([SESSION_SWEEP_INTERVAL_MS])
  const db = server.database.db
  const visitor = { userId: null, ip: '127.0.0.1', userAgent: null }
  const stale = await startSession(db, visitor, defaultSettings, new Date(Date.now() - 3 * 60 * 60_000))
  const live = await startSession(db, visitor, defaultSettings, new Date())

  await enqueueJob(db, RemoveExpiredSessions, {}, { now: new Date() })
  expect(await server.runJobs()).toBe(1)
  const left = await db.selectFrom('sessions').select('id').where('id', 'in', [stale.session.id, live.session.id]).execute()
  expect(left.map((row) => row.id)).toEqual([live.session.id])
})
