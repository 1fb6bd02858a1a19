import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestProject, createTestUser } from '../../testing/factories.js'
import { contextFor } from '../../testing/context.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { JobWorker } from '../../jobs/index.js'
import {
  EVENT_RETENTION_INTERVAL_MS,
  jobHandlers,
  periodicJobs,
  RemoveExpiredEvents,
  removeExpiredEvents,
  retentionCutoff,
} from './index.js'
import { createManyTestEvents, createTestEvent, findEventRows } from '../events/testing.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const db = () => server.database.db
const MINUTE = 60_000

describe('event retention (spec § Limits: 3 years)', () => {
  test('removes events older than three years, keeps younger ones, and a second run removes nothing', async () => {
    const user = await createTestUser(db())
    const project = await createTestProject(db(), { owner: user })
    const now = new Date('2029-06-15T12:00:00.000Z')
    const threeYearsAgo = new Date('2026-06-15T12:00:00.000Z')
    expect(retentionCutoff(now)).toEqual(threeYearsAgo)
    const old = await createTestEvent(db(), {
      project,
      author: user,
      action: 'joined',
      createdAt: new Date(threeYearsAgo.getTime() - MINUTE),
    })
    const edge = await createTestEvent(db(), { project, author: user, action: 'joined', createdAt: threeYearsAgo })
    const young = await createTestEvent(db(), {
      project,
      author: user,
      action: 'joined',
      createdAt: new Date(threeYearsAgo.getTime() + MINUTE),
    })

    const ctx = contextFor(server, null, now)
    expect(await removeExpiredEvents(ctx)).toBe(1)
    expect((await findEventRows(db(), project.id)).map((e) => e.id)).toEqual([edge.id, young.id])
    expect(await removeExpiredEvents(ctx)).toBe(0)
    expect(old.id).toBeLessThan(edge.id)
  })

  test('deletes a backlog in bounded batches until none is left', async () => {
    const user = await createTestUser(db())
    const project = await createTestProject(db(), { owner: user })
    const now = new Date()
    await createManyTestEvents(db(), { project, author: user, count: 25, createdAt: new Date(retentionCutoff(now).getTime() - MINUTE) })
    const kept = await createTestEvent(db(), { project, author: user, action: 'joined', createdAt: now })
    expect(await removeExpiredEvents(contextFor(server, null, now), 10)).toBe(25)
    expect((await findEventRows(db(), project.id)).map((e) => e.id)).toEqual([kept.id])
  })

  // Runs last among the runs with a late clock: it removes what the tests before it left.
  test('an event leaves the API once a run sees it past three years', async () => {
    const user = await createTestUser(db())
    const project = await createTestProject(db(), { owner: user })
    const event = await createTestEvent(db(), { project, author: user, action: 'joined' })
    const request = client(server.url)
    const listed = async () =>
      (await request('GET', `/api/v4/projects/${project.id}/events`, { token: server.rootToken })).body.map((e: { id: number }) => e.id)
    // Three calendar years hold 1,095 or 1,096 days, so one day short of 1,095 is kept and 1,097 is past.
    const later = (days: number) => new Date(new Date(event.created_at).getTime() + days * 24 * 60 * MINUTE)
    await removeExpiredEvents(contextFor(server, null, later(3 * 365 - 1)))
    expect(await listed()).toEqual([event.id])
    await removeExpiredEvents(contextFor(server, null, later(3 * 365 + 2)))
    expect(await listed()).toEqual([])
  })

  test('the hourly retention job removes old events, once per hour whichever nodes schedule it', async () => {
    const user = await createTestUser(db())
    const project = await createTestProject(db(), { owner: user })
    let now = new Date()
    const old = () =>
      createTestEvent(db(), { project, author: user, action: 'joined', createdAt: new Date(retentionCutoff(now).getTime() - MINUTE) })
    await old()
    const kept = await createTestEvent(db(), { project, author: user, action: 'joined', createdAt: now })
    const workers = ['node-1', 'node-2'].map(
      (workerId) =>
        new JobWorker({
          db: db(),
          handlers: jobHandlers,
          periodic: periodicJobs,
          context: () => contextFor(server, null),
          clock: () => now,
          workerId,
        }),
    )
    expect(await workers[0]!.drain()).toBe(1)
    expect(await workers[1]!.drain()).toBe(0)
    expect((await findEventRows(db(), project.id)).map((e) => e.id)).toEqual([kept.id])

    // Within the same hour nothing runs again; the next hour's job removes what expired since.
    await old()
    expect(await workers[1]!.drain()).toBe(0)
    now = new Date(now.getTime() + EVENT_RETENTION_INTERVAL_MS)
    expect(await workers[1]!.drain()).toBe(1)
    expect((await findEventRows(db(), project.id)).map((e) => e.id)).toEqual([kept.id])
    const jobs = await db().selectFrom('jobs').select(['state', 'unique_key']).where('kind', '=', RemoveExpiredEvents.kind).execute()
    expect(jobs.map((job) => job.state)).toEqual(['done', 'done'])
    expect(jobs.map((job) => job.unique_key)).toEqual(expect.arrayContaining([expect.stringMatching(/^events\.remove-expired@\d+$/)]))
    expect(EVENT_RETENTION_INTERVAL_MS).toBe(60 * MINUTE)
  })
})
