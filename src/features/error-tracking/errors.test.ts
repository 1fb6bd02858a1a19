import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let root: string

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(`${server.url}/api/v4`)
  root = server.rootToken
})
afterAll(() => server.close())

async function privateProject() {
  const group = await createTestGroup(db, { visibility: 'private' })
  return createTestProject(db, { namespace: group, visibility: 'private' })
}

async function member(project: ProjectRow, accessLevel: number) {
  const user = await createTestUser(db)
  await addTestMember(db, { user, project, accessLevel })
  return (await createTestToken(db, user)).value
}

interface ErrorSeed {
  name: string
  description?: string
  actor?: string
  platform?: string
  status?: number
  first?: string
  last?: string
  events?: { at: string; payload: unknown; environment?: string | null; level?: string | null }[]
}

async function insertError(project: ProjectRow, seed: ErrorSeed) {
  const events = seed.events ?? []
  const at = '2026-01-01T00:00:00.000Z'
  const error = await db
    .insertInto('error_tracking_errors')
    .values({
      project_id: project.id,
      name: seed.name,
      description: seed.description ?? 'boom',
      actor: seed.actor ?? 'handler(app)',
      platform: seed.platform ?? '',
      first_seen_at: seed.first ?? at,
      last_seen_at: seed.last ?? at,
      events_count: events.length,
      status: seed.status ?? 0,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  for (const event of events) {
    await db
      .insertInto('error_tracking_error_events')
      .values({
        error_id: error.id,
        description: seed.description ?? 'boom',
        environment: event.environment ?? null,
        level: event.level ?? null,
        occurred_at: event.at,
        payload: JSON.stringify(event.payload),
        created_at: event.at,
      })
      .execute()
  }
  return error
}

const errorsPath = (project: ProjectRow) => `/projects/${project.id}/error_tracking/errors`

const frames = [
  { filename: 'app.py', function: 'main', lineno: 3, abs_path: '/srv/app.py' },
  { filename: 'lib.py', function: 'run', lineno: 10, colno: 5, pre_context: ['a', 'b'], context_line: 'raise X', post_context: ['c'] },
]

describe('listing errors', () => {
  test('unresolved errors by last seen, newest first, with the entity and page headers', async () => {
    const project = await privateProject()
    const older = await insertError(project, { name: 'KeyError', description: "'x'", last: '2026-01-02T00:00:00.000Z', platform: 'python' })
    const newer = await insertError(project, { name: 'TypeError', description: 'x is undefined', last: '2026-01-03T00:00:00.000Z' })
    await insertError(project, { name: 'Resolved', status: 1 })
    const list = await request('GET', errorsPath(project), { token: root })
    expect(list.status).toBe(200)
    expect(list.body.map((e: { id: number }) => e.id)).toEqual([newer.id, older.id])
    expect(list.headers['x-total']).toBe('2')
    expect(list.text.startsWith(`[{"id":${newer.id},"title":"TypeError x is undefined","message":"x is undefined"`)).toBe(true)
    expect(list.body[1]).toEqual({
      id: older.id,
      title: "KeyError 'x'",
      message: "'x'",
      culprit: 'handler(app)',
      platform: 'python',
      status: 'unresolved',
      count: 0,
      first_seen: '2026-01-01T00:00:00.000Z',
      last_seen: '2026-01-02T00:00:00.000Z',
      external_url: `${server.url}/${project.full_path}/-/error_tracking/${older.id}/details`,
    })
    expect(list.body[0].platform).toBeNull()
  })

  test('status, search and sort filters; long titles truncated as GitLab does', async () => {
    const project = await privateProject()
    const a = await insertError(project, {
      name: 'A',
      first: '2026-01-05T00:00:00.000Z',
      events: [{ at: '2026-01-05T00:00:00.000Z', payload: {} }],
    })
    const b = await insertError(project, {
      name: 'B',
      description: 'x'.repeat(100),
      actor: 'worker(Jobs)',
      first: '2026-01-01T00:00:00.000Z',
      events: [
        { at: '2026-01-01T00:00:00.000Z', payload: {} },
        { at: '2026-01-02T00:00:00.000Z', payload: {} },
      ],
    })
    const ignored = await insertError(project, { name: 'C', status: 2 })
    const ids = async (query: string) =>
      (await request('GET', `${errorsPath(project)}?${query}`, { token: root })).body.map((e: { id: number }) => e.id)
    expect(await ids('status=ignored')).toEqual([ignored.id])
    expect(await ids('status=resolved')).toEqual([])
    expect(await ids('sort=first_seen')).toEqual([a.id, b.id])
    expect(await ids('sort=frequency')).toEqual([b.id, a.id])
    expect(await ids('search_term=JOBS')).toEqual([b.id])
    expect(await ids('query=jobs')).toEqual([b.id])
    expect(await ids('query=%25')).toEqual([])
    const titled = (await request('GET', `${errorsPath(project)}?sort=frequency`, { token: root })).body[0]
    expect(titled.title).toBe(`B ${'x'.repeat(59)}...`)
    expect(titled.message).toBe('x'.repeat(100))
    const page = await request('GET', `${errorsPath(project)}?sort=frequency&per_page=1&page=2`, { token: root })
    expect(page.body.map((e: { id: number }) => e.id)).toEqual([a.id])
    expect(page.headers['x-total-pages']).toBe('2')
  })

  test('bad filters are 400 with Grape bodies', async () => {
    const project = await privateProject()
    expect(await request('GET', `${errorsPath(project)}?status=muted`, { token: root })).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    })
    expect(await request('GET', `${errorsPath(project)}?sort=name`, { token: root })).toMatchObject({
      status: 400,
      body: { error: 'sort does not have a valid value' },
    })
  })
})

describe('one error, its status and its events', () => {
  test('details with releases; events newest first with their stack traces', async () => {
    const project = await privateProject()
    const error = await insertError(project, {
      name: 'ValueError',
      events: [
        { at: '2026-01-01T00:00:00.000Z', payload: { release: 'v1', platform: 'python', message: 'only a message' } },
        {
          at: '2026-01-02T00:00:00.000Z',
          environment: 'production',
          level: 'error',
          payload: {
            release: 'v2',
            platform: 'python',
            exception: {
              values: [
                { type: 'Outer', value: 'no trace' },
                { type: 'ValueError', value: 'boom', stacktrace: { frames } },
              ],
            },
          },
        },
        {
          at: '2026-01-03T00:00:00.000Z',
          payload: { exception: [{ type: 'ValueError', value: 'boom', stacktrace: { frames: [frames[0]] } }] },
        },
      ],
    })
    const details = await request('GET', `${errorsPath(project)}/${error.id}`, { token: root })
    expect(details.status).toBe(200)
    expect(details.body).toMatchObject({
      id: error.id,
      title: 'ValueError boom',
      count: 3,
      external_base_url: `${server.url}/${project.full_path}`,
      first_release_version: 'v1',
      last_release_version: null,
      integrated: true,
    })

    const events = await request('GET', `${errorsPath(project)}/${error.id}/events?per_page=2`, { token: root })
    expect(events.status).toBe(200)
    expect(events.headers['x-total']).toBe('3')
    expect(events.body).toHaveLength(2)
    expect(events.body[0]).toMatchObject({ occurred_at: '2026-01-03T00:00:00.000Z', platform: null, release: null })
    expect(events.body[0].stack_trace_entries).toHaveLength(1)
    expect(events.body[1]).toEqual({
      id: expect.any(Number),
      error_id: error.id,
      description: 'boom',
      environment: 'production',
      level: 'error',
      platform: 'python',
      release: 'v2',
      occurred_at: '2026-01-02T00:00:00.000Z',
      stack_trace_entries: [
        { function: 'main', col: null, line: 3, file_name: 'app.py', abs_path: '/srv/app.py', trace_context: [] },
        {
          function: 'run',
          col: 5,
          line: 10,
          file_name: 'lib.py',
          abs_path: null,
          trace_context: [
            { line: 8, context: 'a' },
            { line: 9, context: 'b' },
            { line: 10, context: 'raise X' },
            { line: 11, context: 'c' },
          ],
        },
      ],
    })
    const last = await request('GET', `${errorsPath(project)}/${error.id}/events?per_page=2&page=2`, { token: root })
    expect(last.body[0]).toMatchObject({ release: 'v1', stack_trace_entries: [] })
  })

  test('PUT changes the status; unknown errors and bad statuses', async () => {
    const project = await privateProject()
    const other = await privateProject()
    const error = await insertError(project, { name: 'E' })
    const foreign = await insertError(other, { name: 'F' })
    const resolved = await request('PUT', `${errorsPath(project)}/${error.id}`, { token: root, body: { status: 'resolved' } })
    expect(resolved.status).toBe(200)
    expect(resolved.body).toMatchObject({ id: error.id, status: 'resolved' })
    expect((await request('GET', `${errorsPath(project)}?status=resolved`, { token: root })).body.map((e: { id: number }) => e.id)).toEqual(
      [error.id],
    )
    for (const path of [`${errorsPath(project)}/${foreign.id}`, `${errorsPath(project)}/${foreign.id}/events`]) {
      expect(await request('GET', path, { token: root })).toMatchObject({ status: 404, body: { message: '404 Error Not Found' } })
    }
    expect(await request('PUT', `${errorsPath(project)}/${foreign.id}`, { token: root, body: { status: 'ignored' } })).toMatchObject({
      status: 404,
      body: { message: '404 Error Not Found' },
    })
    expect(await request('PUT', `${errorsPath(project)}/${error.id}`, { token: root, body: {} })).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "status" not given' },
    })
    expect(await request('PUT', `${errorsPath(project)}/${error.id}`, { token: root, body: { status: 'muted' } })).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    })
    expect(await request('GET', `${errorsPath(project)}/abc`, { token: root })).toMatchObject({
      status: 400,
      body: { error: 'error_id is invalid' },
    })
  })

  test('permissions: anonymous 401, hidden 404, Guest 403, Reporter reads but 403 on PUT, Developer updates; monitor off 403', async () => {
    const project = await privateProject()
    const error = await insertError(project, { name: 'E' })
    const outsider = (await createTestToken(db, await createTestUser(db))).value
    const guest = await member(project, AccessLevel.GUEST)
    const reporter = await member(project, AccessLevel.REPORTER)
    const developer = await member(project, AccessLevel.DEVELOPER)
    const one = `${errorsPath(project)}/${error.id}`
    expect((await request('GET', errorsPath(project))).status).toBe(401)
    for (const path of [errorsPath(project), one, `${one}/events`]) {
      expect(await request('GET', path, { token: outsider })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
      expect(await request('GET', path, { token: guest })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
      expect((await request('GET', path, { token: reporter })).status).toBe(200)
    }
    expect(await request('PUT', one, { token: reporter })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } })
    expect((await request('PUT', one, { token: developer, body: { status: 'ignored' } })).body.status).toBe('ignored')

    await db.updateTable('projects').set({ monitor_access_level: 0 }).where('id', '=', project.id).execute()
    expect((await request('GET', errorsPath(project), { token: developer })).status).toBe(403)
  })
})
