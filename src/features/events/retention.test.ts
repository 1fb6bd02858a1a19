import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestProject, createTestUser } from '../../testing/factories.js'
import { contextFor } from '../../testing/context.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { removeExpiredEvents, startEventRetention } from './index.js'
import { retentionCutoff } from './service.js'
import { createManyTestEvents, createTestEvent, findEventRows } from './testing.js'

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

  test('the periodic run starts at once, repeats, and stops cleanly', async () => {
    const user = await createTestUser(db())
    const project = await createTestProject(db(), { owner: user })
    const now = new Date()
    const old = () =>
      createTestEvent(db(), { project, author: user, action: 'joined', createdAt: new Date(retentionCutoff(now).getTime() - MINUTE) })
    await old()
    const runs: number[] = []
    const retention = startEventRetention(() => {
      runs.push(Date.now())
      return contextFor(server, null, now)
    }, 50)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await findEventRows(db(), project.id)).toEqual([])
    await old()
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(await findEventRows(db(), project.id)).toEqual([])
    await retention.stop()
    const count = runs.length
    expect(count).toBeGreaterThanOrEqual(2)
    await new Promise((resolve) => setTimeout(resolve, 120))
    expect(runs.length).toBe(count)
  })
})
