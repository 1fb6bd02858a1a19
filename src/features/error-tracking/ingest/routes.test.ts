import { gzipSync, deflateSync, deflateRawSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ProjectRow } from '../../../db/schema.js'
import { createTestGroup, createTestProject } from '../../../testing/factories.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
})

let sequence = 0

async function projectWith(options: { enabled?: number; integrated?: number; settings?: boolean; active?: number } = {}) {
  const db = server.database.db
  const group = await createTestGroup(db, { visibility: 'private' })
  const project = await createTestProject(db, { namespace: group, visibility: 'private' })
  const at = new Date().toISOString()
  if (options.settings !== false) {
    await db
      .insertInto('error_tracking_settings')
      .values({
        project_id: project.id,
        enabled: options.enabled ?? 1,
        integrated: options.integrated ?? 1,
        created_at: at,
        updated_at: at,
      })
      .execute()
  }
  sequence += 1
  const key = `glet_${String(sequence).padStart(32, '0')}`
  await db
    .insertInto('error_tracking_client_keys')
    .values({ project_id: project.id, public_key: key, active: options.active ?? 1, created_at: at, updated_at: at })
    .execute()
  return { project, key }
}

async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/api/v4/error_tracking/collector/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-sentry-envelope', ...headers },
    body,
  })
  const text = await response.text()
  return { status: response.status, text, body: text ? (JSON.parse(text) as unknown) : null }
}

const auth = (key: string) => ({ 'x-sentry-auth': `Sentry sentry_version=7, sentry_client=test/1.0, sentry_key=${key}, sentry_secret=x` })

function exceptionEvent(overrides: Record<string, unknown> = {}) {
  return {
    event_id: 'a'.repeat(32),
    platform: 'node',
    level: 'error',
    environment: 'production',
    timestamp: 1700000000.5,
    exception: {
      values: [
        {
          type: 'TypeError',
          value: 'x is undefined',
          stacktrace: {
            frames: [
              { function: 'first', module: 'lib', lineno: 1 },
              { function: 'handler', module: 'app', lineno: 2, in_app: true },
            ],
          },
        },
      ],
    },
    ...overrides,
  }
}

function envelope(...items: [Record<string, unknown>, string][]) {
  return (
    [JSON.stringify({ event_id: 'a'.repeat(32) }), ...items.flatMap(([header, payload]) => [JSON.stringify(header), payload])].join('\n') +
    '\n'
  )
}

const eventItem = (event: unknown): [Record<string, unknown>, string] => [{ type: 'event' }, JSON.stringify(event)]

async function errorsOf(project: ProjectRow) {
  return server.database.db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', project.id).orderBy('id').execute()
}

async function eventsOf(project: ProjectRow) {
  return server.database.db
    .selectFrom('error_tracking_error_events')
    .innerJoin('error_tracking_errors', 'error_tracking_errors.id', 'error_tracking_error_events.error_id')
    .select([
      'error_tracking_error_events.error_id',
      'error_tracking_error_events.description',
      'environment',
      'level',
      'occurred_at',
      'payload',
    ])
    .where('project_id', '=', project.id)
    .orderBy('error_tracking_error_events.id')
    .execute()
}

describe('envelope', () => {
  test('an event is stored and grouped as GitLab groups it; answered 200 with an empty body', async () => {
    const { project, key } = await projectWith()
    const event = exceptionEvent()
    const response = await post(`${project.id}/envelope/`, envelope(eventItem(event)), auth(key))
    expect(response).toEqual({ status: 200, text: '', body: null })
    const [error] = await errorsOf(project)
    expect(error).toMatchObject({
      name: 'TypeError',
      description: 'x is undefined',
      actor: 'handler(app)',
      platform: 'node',
      events_count: 1,
      status: 0,
      last_seen_at: '2023-11-14T22:13:20.500Z',
    })
    expect(await eventsOf(project)).toEqual([
      {
        error_id: error.id,
        description: 'x is undefined',
        environment: 'production',
        level: 'error',
        occurred_at: '2023-11-14T22:13:20.500Z',
        payload: JSON.stringify(event),
      },
    ])
  })

  test('every item is read: events with a length header holding newlines, sessions and client reports dropped', async () => {
    const { project, key } = await projectWith()
    const pretty = JSON.stringify(exceptionEvent({ transaction: 'GET /users' }), null, 2)
    const body = [
      JSON.stringify({ event_id: 'b'.repeat(32), dsn: 'http://x@h/1' }),
      JSON.stringify({ type: 'session' }),
      JSON.stringify({ sid: 'x', status: 'ok' }),
      JSON.stringify({ type: 'event', length: Buffer.byteLength(pretty) }),
      pretty,
      JSON.stringify({ type: 'client_report' }),
      JSON.stringify({ discarded_events: [] }),
      JSON.stringify({ type: 'attachment', length: 5 }),
      'a\nb\nc',
      JSON.stringify({ type: 'event' }),
      JSON.stringify(exceptionEvent({ transaction: 'GET /users', exception: [{ type: 'TypeError', value: 'second' }] })),
      JSON.stringify({ type: 'transaction' }),
      '{}',
    ].join('\n')
    expect((await post(`${project.id}/envelope`, body, auth(key))).status).toBe(200)
    const errors = await errorsOf(project)
    expect(errors.map((e) => [e.name, e.actor, e.description, e.events_count])).toEqual([['TypeError', 'GET /users', 'second', 2]])
    expect((await eventsOf(project)).map((e) => e.description)).toEqual(['x is undefined', 'second'])
  })

  test('the key from the query, from X-Sentry-Auth, or from the DSN of the envelope header', async () => {
    const { project, key } = await projectWith()
    const body = envelope(eventItem(exceptionEvent()))
    expect((await post(`${project.id}/envelope/?sentry_key=${key}&sentry_version=7`, body)).status).toBe(200)
    expect((await post(`${project.id}/envelope/`, body, auth(key))).status).toBe(200)
    const withDsn = [
      JSON.stringify({ dsn: `http://${key}@localhost/api/v4/error_tracking/collector/${project.id}` }),
      ...eventItem(exceptionEvent()).map((p) => (typeof p === 'string' ? p : JSON.stringify(p))),
    ].join('\n')
    expect((await post(`${project.id}/envelope/`, withDsn)).status).toBe(200)
    expect((await errorsOf(project))[0].events_count).toBe(3)
  })

  test('refusals in GitLab order with its bodies', async () => {
    const { project, key } = await projectWith()
    const body = envelope(eventItem(exceptionEvent()))
    expect(await post(`999999/envelope`, body, auth(key))).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } })
    expect(await post(`${project.id}/envelope`, body)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Failed to parse sentry request' },
    })
    expect(await post(`${project.id}/envelope?sentry_key=`, body)).toMatchObject({ status: 400 })
    expect(await post(`${project.id}/envelope`, body, auth('glet_1fedb514e17f4b958435093deb02048c'))).toEqual({
      status: 404,
      text: '{"message":"404 Not Found"}',
      body: { message: '404 Not Found' },
    })
    const other = await projectWith()
    expect(await post(`${project.id}/envelope`, body, auth(other.key))).toMatchObject({ status: 404, body: { message: '404 Not Found' } })
    const inactive = await projectWith({ active: 0 })
    expect(await post(`${inactive.project.id}/envelope`, body, auth(inactive.key))).toMatchObject({
      status: 404,
      body: { message: '404 Not Found' },
    })
    for (const settings of [{ enabled: 0 }, { integrated: 0 }, { settings: false }]) {
      const off = await projectWith(settings)
      expect(await post(`${off.project.id}/envelope`, body, auth(off.key))).toMatchObject({
        status: 404,
        body: { message: '404 Not Found' },
      })
    }
    expect(await errorsOf(project)).toEqual([])
  })

  test('the project by its URL-encoded full path', async () => {
    const { project, key } = await projectWith()
    const response = await post(`${encodeURIComponent(project.full_path)}/envelope`, envelope(eventItem(exceptionEvent())), auth(key))
    expect(response.status).toBe(200)
    expect(await errorsOf(project)).toHaveLength(1)
  })

  test('gzip and deflate bodies; a bad compressed body is a parse failure', async () => {
    const { project, key } = await projectWith()
    const body = envelope(eventItem(exceptionEvent()))
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['deflate', deflateRawSync(body)],
    ] as const) {
      expect((await post(`${project.id}/envelope`, bytes, { ...auth(key), 'content-encoding': encoding })).status).toBe(200)
    }
    expect((await errorsOf(project))[0].events_count).toBe(3)
    for (const encoding of ['gzip', 'deflate', 'br']) {
      expect(
        await post(`${project.id}/envelope`, Buffer.from('not compressed'), { ...auth(key), 'content-encoding': encoding }),
      ).toMatchObject({
        status: 400,
        body: { message: '400 Bad request - Failed to parse sentry request' },
      })
    }
  })

  test('a zip bomb stops at the decompressed limit with 413; a body over the received limit is 413', async () => {
    const { project, key } = await projectWith()
    const bomb = gzipSync(Buffer.alloc(30 * 1024 * 1024, 0x20))
    expect(await post(`${project.id}/envelope`, bomb, { ...auth(key), 'content-encoding': 'gzip' })).toMatchObject({
      status: 413,
      body: { message: '413 Request Entity Too Large' },
    })
    expect(await post(`${project.id}/envelope`, Buffer.alloc(1024 * 1024 + 1, 0x20), auth(key))).toMatchObject({
      status: 413,
      body: { message: '413 Request Entity Too Large' },
    })
  })

  test('malformed envelopes and events', async () => {
    const { project, key } = await projectWith()
    const parse = { status: 400, body: { message: '400 Bad request - Failed to parse sentry request' } }
    const unsupported = { status: 400, body: { message: '400 Bad request - Unsupported sentry payload' } }
    const cases: [string, unknown][] = [
      ['', parse],
      ['{}\n', parse],
      ['not json\n{"type":"event"}\n{}', parse],
      [envelope([{ type: 'event' }, '{bad json']), parse],
      [`{}\n{"type":"event","length":500}\n${JSON.stringify(exceptionEvent())}`, parse],
      [`{}\n{"type":"event","length":3}\n${JSON.stringify(exceptionEvent())}`, parse],
      [envelope([{ type: 'event' }, '"a string"']), unsupported],
      [envelope(eventItem({ platform: 'node' })), unsupported],
      [envelope(eventItem(exceptionEvent({ exception: { values: [{ type: 1 }] } }))), unsupported],
      [envelope(eventItem(exceptionEvent({ exception: { values: [] } }))), unsupported],
      [envelope(eventItem(exceptionEvent({ platform: 7 }))), unsupported],
      [
        envelope(eventItem(exceptionEvent({ exception: [{ type: 'E', value: 'v', stacktrace: { frames: [{ lineno: 'one' }] } }] }))),
        unsupported,
      ],
    ]
    for (const [body, expected] of cases)
      expect(await post(`${project.id}/envelope`, body, auth(key)), body).toMatchObject(expected as object)
    expect(await errorsOf(project)).toEqual([])
  })

  test("GitLab's validations: blank or too long name, description, actor, platform are 400 with the sentence", async () => {
    const { project, key } = await projectWith()
    const bad = (exception: unknown, extra: Record<string, unknown> = {}) => envelope(eventItem(exceptionEvent({ exception, ...extra })))
    expect(await post(`${project.id}/envelope`, bad([{ value: 'v', stacktrace: { frames: [{ function: 'f' }] } }]), auth(key))).toEqual({
      status: 400,
      text: JSON.stringify({ message: "Validation failed: Name can't be blank" }),
      body: { message: "Validation failed: Name can't be blank" },
    })
    expect((await post(`${project.id}/envelope`, bad([{ type: 'E', value: 'v' }]), auth(key))).body).toEqual({
      message: "Validation failed: Actor can't be blank",
    })
    expect(
      (await post(`${project.id}/envelope`, bad([{ type: 'E', value: 'v' }], { transaction: 't', platform: 'p'.repeat(256) }), auth(key)))
        .body,
    ).toEqual({ message: 'Validation failed: Platform is too long (maximum is 255 characters)' })
    expect(
      (await post(`${project.id}/envelope`, bad([{ type: 'E'.repeat(256), value: 'v'.repeat(1025) }], { transaction: 't' }), auth(key)))
        .body,
    ).toEqual({
      message: 'Validation failed: Name is too long (maximum is 255 characters), Description is too long (maximum is 1024 characters)',
    })
    expect(
      (await post(`${project.id}/envelope`, bad([{ type: 'E', value: 'v' }], { transaction: 't', timestamp: 'never' }), auth(key))).body,
    ).toEqual({
      message: "Validation failed: Occurred at can't be blank",
    })
    // 255 characters beyond the BMP are 510 UTF-16 units, and fine.
    expect(
      (await post(`${project.id}/envelope`, bad([{ type: '😀'.repeat(255), value: 'v' }], { transaction: 't' }), auth(key))).status,
    ).toBe(200)
  })

  test('message events are grouped by their message; a resolved error stays resolved when events come', async () => {
    const { project, key } = await projectWith()
    const message = (overrides: Record<string, unknown>) => envelope(eventItem({ platform: 'node', level: 'info', ...overrides }))
    expect((await post(`${project.id}/envelope`, message({ message: 'Disk full', timestamp: '1700000000' }), auth(key))).status).toBe(200)
    expect((await post(`${project.id}/envelope`, message({ message: { formatted: 'Disk full' } }), auth(key))).status).toBe(200)
    expect(
      (await post(`${project.id}/envelope`, message({ logentry: { message: 'Queue slow' }, transaction: 'worker' }), auth(key))).status,
    ).toBe(200)
    expect((await post(`${project.id}/envelope`, message({ message: 'x'.repeat(300) }), auth(key))).status).toBe(200)
    // A message with the synthetic exception an SDK attaches when it attaches stack traces.
    const synthetic = {
      values: [{ value: 'Disk full', stacktrace: { frames: [{ function: 'check', module: 'disk' }] }, mechanism: { synthetic: true } }],
    }
    expect((await post(`${project.id}/envelope`, message({ message: 'Disk full', exception: synthetic }), auth(key))).status).toBe(200)
    const errors = await errorsOf(project)
    expect(errors.map((e) => [e.name, e.description.length, e.actor, e.events_count])).toEqual([
      ['Disk full', 9, '', 2],
      ['Queue slow', 10, 'worker', 1],
      ['x'.repeat(255), 300, '', 1],
      ['Disk full', 9, 'check(disk)', 1],
    ])
    expect(errors[0].first_seen_at).toBe('2023-11-14T22:13:20.000Z')
    await server.database.db.updateTable('error_tracking_errors').set({ status: 1 }).where('id', '=', errors[0].id).execute()
    // An event from between the two seen so far leaves first_seen and last_seen where they were.
    expect(
      (await post(`${project.id}/envelope`, message({ message: 'Disk full', timestamp: '2024-01-02T03:04:05Z' }), auth(key))).status,
    ).toBe(200)
    expect(await errorsOf(project).then((rows) => rows[0])).toMatchObject({
      status: 1,
      events_count: 3,
      first_seen_at: '2023-11-14T22:13:20.000Z',
      last_seen_at: errors[0].last_seen_at,
    })
  })

  test('a deleted or deactivated key stops working within a second', async () => {
    const { project, key } = await projectWith()
    const body = envelope(eventItem(exceptionEvent()))
    expect((await post(`${project.id}/envelope`, body, auth(key))).status).toBe(200)
    await server.database.db.updateTable('error_tracking_client_keys').set({ active: 0 }).where('public_key', '=', key).execute()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await post(`${project.id}/envelope`, body, auth(key))).status).toBe(404)
    await server.database.db.updateTable('error_tracking_client_keys').set({ active: 1 }).where('public_key', '=', key).execute()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await post(`${project.id}/envelope`, body, auth(key))).status).toBe(200)
    await server.database.db.deleteFrom('error_tracking_client_keys').where('public_key', '=', key).execute()
    await server.database.db.updateTable('error_tracking_settings').set({ enabled: 0 }).where('project_id', '=', project.id).execute()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await post(`${project.id}/envelope`, body, auth(key))).toMatchObject({ status: 404, body: { message: '404 Not Found' } })
  })
})

describe('store', () => {
  test('one JSON event, plain, gzip or deflate, application/json or text/plain', async () => {
    const { project, key } = await projectWith()
    const event = JSON.stringify(
      exceptionEvent({ exception: [{ type: 'E', value: 'v', stacktrace: { frames: [{ function: 'f', module: 'm' }] } }] }),
    )
    const json = { ...auth(key), 'content-type': 'application/json' }
    expect(await post(`${project.id}/store/`, event, json)).toEqual({ status: 200, text: '', body: null })
    expect((await post(`${project.id}/store`, gzipSync(event), { ...json, 'content-encoding': 'gzip' })).status).toBe(200)
    expect((await post(`${project.id}/store`, deflateSync(event), { ...json, 'content-encoding': 'deflate' })).status).toBe(200)
    expect((await post(`${project.id}/store?sentry_key=${key}`, event, { 'content-type': 'text/plain' })).status).toBe(200)
    const errors = await errorsOf(project)
    expect(errors.map((e) => [e.name, e.actor, e.events_count])).toEqual([['E', 'f(m)', 4]])
    expect((await eventsOf(project))[0].payload).toBe(event)
  })

  test('first_seen and last_seen span the times the events name, whatever order or time they arrive in', async () => {
    const { project, key } = await projectWith()
    const json = { ...auth(key), 'content-type': 'application/json' }
    const send = async (timestamp: unknown) => {
      const event = exceptionEvent(timestamp === undefined ? { timestamp: undefined } : { timestamp })
      expect((await post(`${project.id}/store/`, JSON.stringify(event), json)).status).toBe(200)
      const [error] = await errorsOf(project)
      return [error.first_seen_at, error.last_seen_at, error.events_count]
    }
    // One event from the past: both are its time, not the time of receipt.
    expect(await send('2026-01-02T00:00:00Z')).toEqual(['2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 1])
    // An older event arriving later moves first_seen back and leaves last_seen.
    expect(await send('2026-01-01T00:00:00Z')).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 2])
    // A newer one moves last_seen on; one in between changes neither.
    expect(await send(1767657600)).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-06T00:00:00.000Z', 3])
    expect(await send('2026-01-03T00:00:00Z')).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-06T00:00:00.000Z', 4])
    // A time in the future is taken as sent; an event without one happened when it was received, before that.
    expect(await send('2099-01-01T00:00:00Z')).toEqual(['2026-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z', 5])
    expect(await send(undefined)).toEqual(['2026-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z', 6])

    const list = await fetch(`${server.url}/api/v4/projects/${project.id}/error_tracking/errors`, {
      headers: { 'private-token': server.rootToken },
    })
    expect(list.status).toBe(200)
    expect(((await list.json()) as Record<string, unknown>[]).map((e) => [e.first_seen, e.last_seen, e.count])).toEqual([
      ['2026-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z', 6],
    ])
  })

  test('events of one envelope out of order: the new error spans the earliest to the latest', async () => {
    const { project, key } = await projectWith()
    const body = envelope(
      eventItem(exceptionEvent({ timestamp: '2026-03-02T00:00:00Z' })),
      eventItem(exceptionEvent({ timestamp: '2026-03-01T00:00:00Z' })),
      eventItem(exceptionEvent({ timestamp: '2026-03-03T00:00:00Z' })),
      eventItem(exceptionEvent({ timestamp: '2026-03-02T12:00:00Z' })),
    )
    expect((await post(`${project.id}/envelope/`, body, auth(key))).status).toBe(200)
    const errors = await errorsOf(project)
    expect(errors.map((e) => [e.first_seen_at, e.last_seen_at, e.events_count])).toEqual([
      ['2026-03-01T00:00:00.000Z', '2026-03-03T00:00:00.000Z', 4],
    ])
  })

  test('malformed bodies and other content types', async () => {
    const { project, key } = await projectWith()
    const json = { ...auth(key), 'content-type': 'application/json' }
    expect(await post(`${project.id}/store`, '', json)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Failed to parse sentry request' },
    })
    expect(await post(`${project.id}/store`, '{"exc', json)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Failed to parse sentry request' },
    })
    expect(await post(`${project.id}/store`, '"********"', json)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Unsupported sentry payload' },
    })
    expect(await post(`${project.id}/store`, '{"platform":"node"}', json)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Unsupported sentry payload' },
    })
    expect(await post(`${project.id}/store`, 'x', { ...json, 'content-encoding': 'gzip' })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Failed to parse sentry request' },
    })
    expect(
      (await post(`${project.id}/store`, gzipSync(JSON.stringify(exceptionEvent())), { ...auth(key), 'content-type': 'application/gzip' }))
        .status,
    ).toBe(415)
    expect(await post(`${project.id}/store`, JSON.stringify(exceptionEvent()), { 'content-type': 'application/json' })).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Failed to parse sentry request' },
    })
    expect(await errorsOf(project)).toEqual([])
  })
})

describe('unusual text', () => {
  const raw = (type: string, value: string, extra = '') =>
    `{"platform":"node","timestamp":1700000000,${extra}"exception":{"values":[{"type":${type},"value":${value},"stacktrace":{"frames":[{"function":"f","module":"m"}]}}]}}`

  test('lone surrogates become U+FFFD and NULs are dropped, so the event is stored readable and grouped', async () => {
    const { project, key } = await projectWith()
    const json = { ...auth(key), 'content-type': 'application/json' }
    const bodies = [
      raw('"E\\ud800"', '"v\\udc00x"', '"transaction":"t\\udfff","environment":"p\\u0000","level":"e\\ud800rror",'),
      raw('"E\\ud800"', '"v\\udc00x"', '"transaction":"t\\udfff","environment":"p\\u0000","level":"e\\ud800rror",'),
      raw('"E\\u0000"', '"v\\u0000"', '"transaction":"t\\ud83d\\ude00",'),
      '{"timestamp":1700000000,"message":"m\\u0000x\\ud800"}',
    ]
    for (const body of bodies) expect(await post(`${project.id}/store`, body, json)).toEqual({ status: 200, text: '', body: null })
    const envelopeBody = envelope([{ type: 'event' }, raw('"E\\ud800"', '"v"', '"transaction":"t\\udfff",')])
    expect(await post(`${project.id}/envelope`, envelopeBody, auth(key))).toEqual({ status: 200, text: '', body: null })
    const errors = await errorsOf(project)
    expect(errors.map((e) => [e.name, e.description, e.actor, e.events_count])).toEqual([
      ['E\ufffd', 'v', 't\ufffd', 3],
      ['E', 'v', 't\u{1f600}', 1],
      ['mx\ufffd', 'mx\ufffd', '', 1],
    ])
    const events = await eventsOf(project)
    expect(events.map((e) => [e.description, e.environment, e.level, e.payload])).toEqual([
      ['v\ufffdx', 'p', 'e\ufffdrror', bodies[0]],
      ['v\ufffdx', 'p', 'e\ufffdrror', bodies[1]],
      ['v', null, null, bodies[2]],
      ['mx\ufffd', null, null, bodies[3]],
      ['v', null, null, raw('"E\\ud800"', '"v"', '"transaction":"t\\udfff",')],
    ])
  })

  test('invalid UTF-8 is read with U+FFFD; very long text is refused with the validation sentence; deep JSON is stored', async () => {
    const { project, key } = await projectWith()
    const json = { ...auth(key), 'content-type': 'application/json' }
    expect(await post(`${project.id}/store`, Buffer.from(raw('"E\xff"', '"v"'), 'latin1'), json)).toEqual({
      status: 200,
      text: '',
      body: null,
    })
    expect(await post(`${project.id}/store`, raw('"E"', JSON.stringify('x'.repeat(900_000))), json)).toEqual({
      status: 400,
      text: '{"message":"Validation failed: Description is too long (maximum is 1024 characters)"}',
      body: { message: 'Validation failed: Description is too long (maximum is 1024 characters)' },
    })
    const deep = `{"timestamp":1700000000,"message":"m","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
    expect(await post(`${project.id}/store`, deep, json)).toEqual({ status: 200, text: '', body: null })
    expect((await errorsOf(project)).map((e) => [e.name, e.events_count])).toEqual([
      ['E\ufffd', 1],
      ['m', 1],
    ])
  })
})
