import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../../db/index.js'
import type { ProjectRow } from '../../../db/schema.js'
import { createTestGroup, createTestIssue, createTestProject, createTestUser } from '../../../testing/factories.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'

let free: TestServer
let premium: TestServer

beforeAll(async () => {
  ;[free, premium] = await Promise.all([startTestServer(), startTestServer({ SVC_TIER: 'premium' })])
})
afterAll(async () => {
  await Promise.all([free.close(), premium.close()])
})

let sequence = 0
const KEY = '0123456789abcdef0123456789abcdef'

async function projectWith(server: TestServer, options: { integrations?: Partial<Record<string, unknown>>[]; depth?: number } = {}) {
  const db = server.database.db
  let parent = await createTestGroup(db, { visibility: 'private' })
  for (let n = 1; n < (options.depth ?? 1); n++) parent = await createTestGroup(db, { visibility: 'private', parent })
  const project = await createTestProject(db, { namespace: parent, visibility: 'private' })
  const at = new Date().toISOString()
  for (const integration of options.integrations ?? [{}]) {
    sequence += 1
    await db
      .insertInto('alert_integrations')
      .values({
        project_id: project.id,
        name: `Integration ${sequence}`,
        type: 'http',
        active: 1,
        endpoint_identifier: 'legacy',
        token: KEY,
        created_at: at,
        updated_at: at,
        ...integration,
      } as never)
      .execute()
  }
  return project
}

async function post(server: TestServer, path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) {
  const response = await fetch(`${server.url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, text, body: text ? (JSON.parse(text) as unknown) : null }
}

function alertsOf(db: Db, project: ProjectRow) {
  return db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).orderBy('iid').execute()
}

function notesOf(db: Db, alertId: number) {
  return db.selectFrom('notes').select(['body', 'author_id']).where('alert_id', '=', alertId).orderBy('id').execute()
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

describe('routes and keys', () => {
  test('each URL form, .json or not, at any namespace depth, answers 200 with the alert', async () => {
    const project = await projectWith(free, {
      depth: 3,
      integrations: [{}, { endpoint_identifier: 'abc123' }, { endpoint_identifier: 'legacy-prometheus', type: 'prometheus' }],
    })
    const first = await post(free, `${project.full_path}/alerts/notify.json`, { title: 'one' })
    expect(first).toEqual({ status: 200, text: '[{"iid":1,"title":"one"}]', body: [{ iid: 1, title: 'one' }] })
    expect((await post(free, `${project.full_path}/alerts/notify`, { title: 'two' })).text).toBe('[{"iid":2,"title":"two"}]')
    expect((await post(free, `${project.full_path}/alerts/notify/anything/abc123.json`, { title: 'three' })).text).toBe(
      '[{"iid":3,"title":"three"}]',
    )
    expect((await post(free, `${project.full_path}/prometheus/alerts/notify.json`, {})).text).toBe('[{"iid":4,"title":"New: Alert"}]')
  })

  test('Basic authentication with a blank user carries the key as password; wrong or missing keys get 401 with no body', async () => {
    const project = await projectWith(free)
    const path = `${project.full_path}/alerts/notify.json`
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` })
    expect((await post(free, path, { title: 'basic' }, basic('', KEY))).status).toBe(200)
    for (const headers of [{}, basic('', 'nope'), { authorization: 'Bearer nope' }, { authorization: `Token ${KEY}` }, basic('', '')]) {
      expect(await post(free, path, { title: 'x' }, headers)).toEqual({ status: 401, text: '', body: null })
    }
    expect(await alertsOf(free.database.db, project)).toHaveLength(1)
  })

  test('an unknown or inactive integration answers 403 on the generic URLs and 401 for monitoring-system payloads', async () => {
    const project = await projectWith(free, { integrations: [{ active: 0 }, { endpoint_identifier: 'off1', active: 0 }] })
    const generic = { title: 'x' }
    const prometheus = prometheusPayload([firing('a')])
    expect(await post(free, `${project.full_path}/alerts/notify.json`, generic)).toEqual({ status: 403, text: '', body: null })
    expect(await post(free, `${project.full_path}/alerts/notify/a/off1.json`, generic)).toEqual({ status: 403, text: '', body: null })
    expect(await post(free, `${project.full_path}/alerts/notify/a/nothere.json`, generic)).toEqual({ status: 403, text: '', body: null })
    expect(await post(free, `${project.full_path}/prometheus/alerts/notify.json`, prometheus)).toEqual({
      status: 401,
      text: '',
      body: null,
    })
    expect(await post(free, `${project.full_path}/alerts/notify.json`, prometheus)).toEqual({ status: 401, text: '', body: null })
  })

  test('an unknown project, or one marked for deletion, answers 404 with no body', async () => {
    const project = await projectWith(free)
    expect(await post(free, `nobody/nothing/alerts/notify.json`, {})).toEqual({ status: 404, text: '', body: null })
    await free.database.db.updateTable('projects').set({ pending_delete: 1 }).where('id', '=', project.id).execute()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await post(free, `${project.full_path}/alerts/notify.json`, {})).status).toBe(404)
  })

  test('deactivating the integration or changing its key takes effect within a second', async () => {
    const project = await projectWith(free)
    const path = `${project.full_path}/alerts/notify.json`
    expect((await post(free, path, { title: 'a' })).status).toBe(200)
    await free.database.db
      .updateTable('alert_integrations')
      .set({ token: 'f'.repeat(32) })
      .where('project_id', '=', project.id)
      .execute()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await post(free, path, { title: 'a' })).status).toBe(401)
    expect((await post(free, path, { title: 'a' }, { authorization: `Bearer ${'f'.repeat(32)}` })).status).toBe(200)
    await free.database.db.updateTable('alert_integrations').set({ active: 0 }).where('project_id', '=', project.id).execute()
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await post(free, path, { title: 'a' }, { authorization: `Bearer ${'f'.repeat(32)}` })).status).toBe(403)
  })

  test('payloads over 1 MiB or 100 levels deep answer 400 with no body; invalid JSON answers Rails’ 400', async () => {
    const project = await projectWith(free)
    const path = `${project.full_path}/alerts/notify.json`
    expect(await post(free, path, { title: 'big', filler: 'x'.repeat(1024 * 1024) })).toEqual({ status: 400, text: '', body: null })
    let deep: unknown = 'leaf'
    for (let n = 0; n < 101; n++) deep = { d: deep }
    expect(await post(free, path, deep)).toEqual({ status: 400, text: '', body: null })
    let fine: unknown = 'leaf'
    for (let n = 0; n < 100; n++) fine = { d: fine }
    expect((await post(free, path, fine)).status).toBe(200)
    expect(await post(free, path, '{"title": ')).toEqual({
      status: 400,
      text: '{"status":400,"error":"Bad Request"}',
      body: { status: 400, error: 'Bad Request' },
    })
  })
  test('100,000 levels of arrays or objects answer 400 with no body at every URL form, and store nothing', async () => {
    const project = await projectWith(free, { integrations: [{}, { endpoint_identifier: 'abc123' }] })
    const levels = 100_000
    const bodies = ['['.repeat(levels) + ']'.repeat(levels), '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)]
    for (const path of [
      `${project.full_path}/alerts/notify.json`,
      `${project.full_path}/alerts/notify/name/abc123.json`,
      `${project.full_path}/prometheus/alerts/notify.json`,
    ]) {
      for (const body of bodies) expect(await post(free, path, body)).toEqual({ status: 400, text: '', body: null })
    }
    expect(await alertsOf(free.database.db, project)).toEqual([])
  })

  test('an integration made active right after a refusal is found at once', async () => {
    const project = await projectWith(free, { integrations: [{ active: 0 }] })
    const path = `${project.full_path}/alerts/notify.json`
    expect((await post(free, path, { title: 'a' })).status).toBe(403)
    await free.database.db.updateTable('alert_integrations').set({ active: 1 }).where('project_id', '=', project.id).execute()
    expect((await post(free, path, { title: 'a' })).status).toBe(200)
  })
})

describe('generic payloads', () => {
  test('the payload is stored byte for byte as sent', async () => {
    const project = await projectWith(free)
    const text = '{ "title" : "raw",\n  "z": 1, "a": [ 1.50, "\\u00e9" ] }'
    expect((await post(free, `${project.full_path}/alerts/notify.json`, text)).body).toEqual([{ iid: 1, title: 'raw' }])
    expect((await alertsOf(free.database.db, project))[0].payload).toBe(text)
  })

  test('NULs are dropped and lone surrogates become U+FFFD in the alert; the payload is kept as sent', async () => {
    const project = await projectWith(free)
    const text =
      '{"title":"a\\u0000b\\ud800c","description":"d\\u0000","service":"s\\udc00","monitoring_tool":"T\\u0000","hosts":["h\\u0000"]}'
    expect(await post(free, `${project.full_path}/alerts/notify.json`, text)).toEqual({
      status: 200,
      text: '[{"iid":1,"title":"ab\ufffdc"}]',
      body: [{ iid: 1, title: 'ab\ufffdc' }],
    })
    const [alert] = await alertsOf(free.database.db, project)
    expect(alert).toMatchObject({ title: 'ab\ufffdc', description: 'd', service: 's\ufffd', monitoring_tool: 'T', hosts: '["h"]' })
    expect(alert.payload).toBe(text)
  })

  test('every field is read, truncated and stored; the payload is kept as received', async () => {
    const project = await projectWith(free)
    const db = free.database.db
    const at = new Date().toISOString()
    await db
      .insertInto('environments')
      .values({ project_id: project.id, name: 'production', slug: 'production', created_at: at, updated_at: at })
      .execute()
    const payload = {
      title: 't'.repeat(250),
      description: 'd'.repeat(1200),
      start_time: '2026-01-02T03:04:05+01:00',
      service: 's'.repeat(150),
      monitoring_tool: 'Tool',
      hosts: ['h'.repeat(200), ['i'.repeat(100)], 'j'],
      severity: 'HIGH',
      runbook: 'https://runbook',
      gitlab_environment_name: 'production',
      nested: { deep: [1, { x: 2 }] },
    }
    const answer = await post(free, `${project.full_path}/alerts/notify.json`, payload)
    expect(answer.body).toEqual([{ iid: 1, title: `${'t'.repeat(197)}...` }])
    const [alert] = await alertsOf(db, project)
    expect(alert).toMatchObject({
      title: `${'t'.repeat(197)}...`,
      description: `${'d'.repeat(997)}...`,
      service: `${'s'.repeat(97)}...`,
      monitoring_tool: 'Tool',
      severity: 1,
      status: 0,
      events: 1,
      started_at: '2026-01-02T02:04:05.000Z',
      ended_at: null,
      runbook: 'https://runbook',
      fingerprint: null,
      hosts: JSON.stringify(['h'.repeat(200), 'i'.repeat(55)]),
    })
    expect(alert.environment_id).not.toBeNull()
    expect(JSON.parse(alert.payload)).toEqual(payload)
    expect(await notesOf(db, alert.id)).toEqual([{ body: 'logged an alert from **Tool**', author_id: expect.any(Number) }])
  })

  test('an empty payload makes a critical "New: Alert" now; the note names the integration', async () => {
    const project = await projectWith(free, { integrations: [{ name: 'My endpoint' }] })
    const before = Date.now()
    expect((await post(free, `${project.full_path}/alerts/notify.json`, {})).body).toEqual([{ iid: 1, title: 'New: Alert' }])
    const [alert] = await alertsOf(free.database.db, project)
    expect(alert.severity).toBe(0)
    expect(Date.parse(alert.started_at)).toBeGreaterThanOrEqual(before - 1000)
    expect(await notesOf(free.database.db, alert.id)).toEqual([
      { body: 'logged an alert from **My endpoint**', author_id: expect.any(Number) },
    ])
  })

  test.each([
    ['critical', 0],
    ['High', 1],
    ['MEDIUM', 2],
    ['low', 3],
    ['info', 4],
    ['unknown', 5],
    ['s2', 0],
    ['bogus', 0],
  ])('generic severity %s is stored as %i', async (severity, stored) => {
    const project = await projectWith(free)
    await post(free, `${project.full_path}/alerts/notify.json`, { severity })
    expect((await alertsOf(free.database.db, project))[0].severity).toBe(stored)
  })

  test('Free: without a fingerprint every payload is a new alert; with one, repeats count and an end time resolves', async () => {
    const project = await projectWith(free)
    const db = free.database.db
    const path = `${project.full_path}/alerts/notify.json`
    await post(free, path, { title: 'same' })
    await post(free, path, { title: 'same' })
    expect((await post(free, path, { title: 'fp', fingerprint: 'abc' })).body).toEqual([{ iid: 3, title: 'fp' }])
    expect((await post(free, path, { title: 'other title', fingerprint: 'abc' })).body).toEqual([{ iid: 3, title: 'fp' }])
    let alerts = await alertsOf(db, project)
    expect(alerts.map((a) => [a.iid, a.events, a.fingerprint])).toEqual([
      [1, 1, null],
      [2, 1, null],
      [3, 2, sha1('abc')],
    ])
    expect((await post(free, path, { fingerprint: 'abc', end_time: '2026-03-01T00:00:00Z' })).body).toEqual([{ iid: 3, title: 'fp' }])
    alerts = await alertsOf(db, project)
    expect(alerts[2]).toMatchObject({ status: 2, ended_at: '2026-03-01T00:00:00.000Z', events: 2 })
    expect((await notesOf(db, alerts[2].id)).map((n) => n.body)).toEqual([
      expect.stringMatching(/^logged an alert from \*\*Integration \d+\*\*$/),
      expect.stringMatching(/^logged a recovery alert from \*\*Integration \d+\*\*$/),
      'changed the status to **Resolved**',
    ])
    // A recovery with nothing open creates nothing.
    expect(await post(free, path, { fingerprint: 'abc', end_time: '2026-03-01T00:00:00Z' })).toEqual({ status: 400, text: '', body: null })
    // The same payload after resolution is a new alert.
    expect((await post(free, path, { title: 'fp', fingerprint: 'abc' })).body).toEqual([{ iid: 4, title: 'fp' }])
    // Arrays concatenate without separator.
    expect((await post(free, path, { fingerprint: ['a', ['b', 1]] })).body).toEqual([{ iid: 5, title: 'New: Alert' }])
    expect((await alertsOf(db, project))[4].fingerprint).toBe(sha1('ab1'))
  })

  test('acknowledged and ignored alerts still match; resolved ones do not', async () => {
    const project = await projectWith(free)
    const db = free.database.db
    const path = `${project.full_path}/alerts/notify.json`
    await post(free, path, { fingerprint: 'k' })
    await db.updateTable('alerts').set({ status: 3 }).where('project_id', '=', project.id).execute()
    expect((await post(free, path, { fingerprint: 'k' })).body).toEqual([{ iid: 1, title: 'New: Alert' }])
    await db.updateTable('alerts').set({ status: 1 }).where('project_id', '=', project.id).execute()
    expect((await post(free, path, { fingerprint: 'k' })).body).toEqual([{ iid: 1, title: 'New: Alert' }])
    expect((await alertsOf(db, project))[0].events).toBe(3)
  })

  test('Premium: a payload without a fingerprint is fingerprinted without start_time, end_time and hosts', async () => {
    const project = await projectWith(premium)
    const db = premium.database.db
    const path = `${project.full_path}/alerts/notify.json`
    await post(premium, path, { title: 'p', a: { b: 1 }, start_time: '2026-01-01T00:00:00Z', hosts: 'h1' })
    expect((await post(premium, path, { a: { b: 1 }, title: 'p', hosts: ['h2'] })).body).toEqual([{ iid: 1, title: 'p' }])
    const [alert] = await alertsOf(db, project)
    expect(alert.events).toBe(2)
    expect(alert.fingerprint).toBe(sha1('[["a.b", 1], ["title", "p"]]'))
    // Identical to a resolved alert: a new one.
    await post(premium, path, { title: 'p', a: { b: 1 }, end_time: '2026-01-02T00:00:00Z' })
    expect((await post(premium, path, { title: 'p', a: { b: 1 } })).body).toEqual([{ iid: 2, title: 'p' }])
    await db.deleteFrom('alerts').where('project_id', '=', project.id).where('iid', '=', 2).execute()
    // Only excluded keys: no fingerprint.
    await post(premium, path, { start_time: '2026-01-01T00:00:00Z' })
    await post(premium, path, { start_time: '2026-01-01T00:00:00Z' })
    expect((await alertsOf(db, project)).map((a) => [a.iid, a.events, a.status])).toEqual([
      [1, 2, 2],
      [3, 1, 0],
      [4, 1, 0],
    ])
  })

  test('Premium: custom field mappings of HTTP integrations come before the default fields', async () => {
    const mappings = [
      { field_name: 'title', path: ['alert', 'name'], type: 'string' },
      { field_name: 'severity', path: ['alert', 'levels', 0], type: 'string' },
      { field_name: 'start_time', path: ['when'], type: 'datetime' },
      { field_name: 'fingerprint', path: ['alert', 'id'], type: 'string' },
    ]
    const project = await projectWith(premium, {
      integrations: [{ endpoint_identifier: 'mapped', payload_attribute_mappings: JSON.stringify(mappings) }],
    })
    const path = `${project.full_path}/alerts/notify/x/mapped.json`
    const payload = { title: 'ignored', alert: { name: 'Mapped', levels: ['low'], id: 7 }, when: '2026-05-05T05:05:05Z' }
    expect((await post(premium, path, payload)).body).toEqual([{ iid: 1, title: 'Mapped' }])
    const [alert] = await alertsOf(premium.database.db, project)
    expect(alert).toMatchObject({ severity: 3, started_at: '2026-05-05T05:05:05.000Z', fingerprint: sha1('7') })
    // Free ignores mappings.
    const freeProject = await projectWith(free, {
      integrations: [{ endpoint_identifier: 'mapped', payload_attribute_mappings: JSON.stringify(mappings) }],
    })
    expect((await post(free, `${freeProject.full_path}/alerts/notify/x/mapped.json`, payload)).body).toEqual([{ iid: 1, title: 'ignored' }])
  })

  test('50 identical payloads at once make one alert with 50 events; distinct ones get consecutive iids', async () => {
    const project = await projectWith(free)
    const path = `${project.full_path}/alerts/notify.json`
    const same = await Promise.all(Array.from({ length: 50 }, () => post(free, path, { title: 'storm', fingerprint: 'storm' })))
    expect(same.every((r) => r.text === '[{"iid":1,"title":"storm"}]')).toBe(true)
    const distinct = await Promise.all(Array.from({ length: 30 }, (_, n) => post(free, path, { title: `d${n}`, fingerprint: `d${n}` })))
    const iids = distinct.map((r) => (r.body as { iid: number }[])[0].iid).sort((a, b) => a - b)
    expect(iids).toEqual(Array.from({ length: 30 }, (_, n) => n + 2))
    const alerts = await alertsOf(free.database.db, project)
    expect(alerts[0].events).toBe(50)
    expect(alerts).toHaveLength(31)
  })

  test('new alerts enqueue CreateIncident and resolved ones with an incident CloseIncident, as the integration says', async () => {
    const project = await projectWith(free, { integrations: [{ create_incident: 1, auto_close_incident: 1 }] })
    const db = free.database.db
    const path = `${project.full_path}/alerts/notify.json`
    await post(free, path, { fingerprint: 'inc' })
    const [alert] = await alertsOf(db, project)
    const jobs = () =>
      db
        .selectFrom('jobs')
        .select(['kind', 'payload'])
        .where('payload', '=', JSON.stringify({ alertId: alert.id }))
        .orderBy('id')
        .execute()
    expect((await jobs()).map((j) => j.kind)).toEqual(['alerts.create-incident'])
    const user = await createTestUser(db)
    const issue = await createTestIssue(db, { project, author: user, issueType: 'incident' })
    await db.updateTable('alerts').set({ issue_id: issue.id }).where('id', '=', alert.id).execute()
    await post(free, path, { fingerprint: 'inc', end_time: 'not a time' })
    expect((await jobs()).map((j) => j.kind)).toEqual(['alerts.create-incident'])
    await post(free, path, { fingerprint: 'inc', end_time: '2026-01-01T00:00:00Z' })
    expect((await jobs()).map((j) => j.kind)).toEqual(['alerts.create-incident', 'alerts.close-incident'])
  })
})

function firing(title: string, extra: Record<string, unknown> = {}) {
  return {
    status: 'firing',
    labels: { alertname: title, severity: 'warning' },
    annotations: { description: 'desc', runbook: 'rb' },
    startsAt: '2026-04-27T10:10:22.265949279Z',
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prom:9090/graph?g0.expr=vector%281%29&g0.tab=1',
    ...extra,
  }
}

function prometheusPayload(alerts: unknown[]) {
  return {
    version: '4',
    groupKey: '{}:{}',
    status: 'firing',
    receiver: 'svc',
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: 'http://alertmanager',
    alerts,
  }
}

describe('monitoring-system payloads', () => {
  test('each item is an alert; repeats count, resolved items resolve, items without title or startsAt are left out', async () => {
    const project = await projectWith(free, {
      integrations: [{ endpoint_identifier: 'legacy-prometheus', type: 'prometheus', name: 'Prom' }],
    })
    const db = free.database.db
    const path = `${project.full_path}/prometheus/alerts/notify.json`
    const first = await post(
      free,
      path,
      prometheusPayload([
        firing('A', { annotations: { title: 'Annotated', summary: 'no' } }),
        firing('B'),
        firing('B'),
        { labels: {}, startsAt: '2026-01-01T00:00:00Z' },
        { labels: { alertname: 'no start' } },
        firing('C', { status: 'resolved' }),
      ]),
    )
    expect(first.text).toBe('[{"iid":1,"title":"Annotated"},{"iid":2,"title":"B"}]')
    const alerts = await alertsOf(db, project)
    expect(alerts.map((a) => [a.title, a.events, a.severity, a.monitoring_tool, a.runbook, a.description])).toEqual([
      ['Annotated', 1, 3, 'Prometheus', null, null],
      ['B', 2, 3, 'Prometheus', 'rb', 'desc'],
    ])
    expect(alerts[1].fingerprint).toBe(sha1('2026-04-27T10:10:22.265949279Z/B/vector(1)'))
    expect(alerts[0].fingerprint).toBe(sha1('2026-04-27T10:10:22.265949279Z/Annotated/vector(1)'))
    expect(JSON.parse(alerts[1].payload)).toEqual(firing('B'))
    const second = await post(free, path, prometheusPayload([firing('B', { status: 'resolved', endsAt: '2026-04-28T00:00:00Z' })]))
    expect(second.text).toBe('[{"iid":2,"title":"B"}]')
    const resolved = (await alertsOf(db, project))[1]
    expect(resolved).toMatchObject({ status: 2, ended_at: '2026-04-28T00:00:00.000Z' })
    expect((await notesOf(db, resolved.id)).map((n) => n.body)).toEqual([
      'logged an alert from **Prometheus**',
      'logged a recovery alert from **Prometheus**',
      'changed the status to **Resolved**',
    ])
  })

  test('an endsAt at or before receipt resolves a firing alert; a future endsAt and the zero time do not', async () => {
    const project = await projectWith(free, {
      integrations: [{ endpoint_identifier: 'legacy-prometheus', type: 'prometheus', name: 'Prom' }],
    })
    const db = free.database.db
    const path = `${project.full_path}/prometheus/alerts/notify.json`
    const future = new Date(Date.now() + 3_600_000).toISOString()
    const past = new Date(Date.now() - 60_000).toISOString()
    const opened = await post(free, path, prometheusPayload([firing('Future', { endsAt: future }), firing('Zero'), firing('Past')]))
    expect(opened).toEqual({
      status: 200,
      text: '[{"iid":1,"title":"Future"},{"iid":2,"title":"Zero"},{"iid":3,"title":"Past"}]',
      body: [
        { iid: 1, title: 'Future' },
        { iid: 2, title: 'Zero' },
        { iid: 3, title: 'Past' },
      ],
    })
    const again = await post(
      free,
      path,
      prometheusPayload([firing('Future', { endsAt: future }), firing('Zero'), firing('Past', { endsAt: past })]),
    )
    expect(again.text).toBe('[{"iid":1,"title":"Future"},{"iid":2,"title":"Zero"},{"iid":3,"title":"Past"}]')
    const alerts = await alertsOf(db, project)
    expect(alerts.map((a) => [a.iid, a.status, a.events, a.ended_at])).toEqual([
      [1, 0, 2, null],
      [2, 0, 2, null],
      [3, 2, 1, new Date(past).toISOString()],
    ])
    expect((await notesOf(db, alerts[2].id)).map((n) => n.body)).toEqual([
      'logged an alert from **Prometheus**',
      'logged a recovery alert from **Prometheus**',
      'changed the status to **Resolved**',
    ])
    // Resolved with the zero time for an end: it ended when the recovery came, not in the year 1.
    const before = Date.now()
    await post(free, path, prometheusPayload([firing('Zero', { status: 'resolved' })]))
    const zero = (await alertsOf(db, project))[1]
    expect(zero.status).toBe(2)
    expect(Date.parse(zero.ended_at!)).toBeGreaterThanOrEqual(before - 1_000)
    // A past endsAt for an alert that is not open creates nothing, as a recovery does.
    expect((await post(free, path, prometheusPayload([firing('Gone', { endsAt: past })]))).text).toBe('[]')
    expect(await alertsOf(db, project)).toHaveLength(3)
  })

  test('the format is known by its keys and version "4" on any URL; a generic URL with version 3 is generic', async () => {
    const project = await projectWith(free)
    const path = `${project.full_path}/alerts/notify.json`
    expect((await post(free, path, prometheusPayload([firing('X')]))).text).toBe('[{"iid":1,"title":"X"}]')
    const v3 = { ...prometheusPayload([firing('Y')]), version: '3' }
    expect((await post(free, path, v3)).text).toBe('[{"iid":2,"title":"New: Alert"}]')
  })

  test.each([
    ['critical', 0],
    ['s1', 0],
    ['P1', 0],
    ['emergency', 0],
    ['FATAL', 0],
    ['high', 1],
    ['s2', 1],
    ['p2', 1],
    ['major', 1],
    ['page', 1],
    ['medium', 2],
    ['s3', 2],
    ['p3', 2],
    ['error', 2],
    ['alert', 2],
    ['low', 3],
    ['s4', 3],
    ['p4', 3],
    ['warn', 3],
    ['Warning', 3],
    ['minor', 3],
    ['info', 4],
    ['s5', 4],
    ['p5', 4],
    ['debug', 4],
    ['information', 4],
    ['notice', 4],
    ['other', 0],
  ])('severity label %s is stored as %i', async (severity, stored) => {
    const project = await projectWith(free, { integrations: [{ endpoint_identifier: 'legacy-prometheus', type: 'prometheus' }] })
    await post(
      free,
      `${project.full_path}/prometheus/alerts/notify.json`,
      prometheusPayload([firing('S', { labels: { alertname: 'S', severity } })]),
    )
    expect((await alertsOf(free.database.db, project))[0].severity).toBe(stored)
  })
})

describe('environments of monitoring-system alerts', () => {
  test('labels.svc_environment_name, or GitLab’s gitlab_environment_name, links the environment of that exact name', async () => {
    const project = await projectWith(free, { integrations: [{ endpoint_identifier: 'legacy-prometheus', type: 'prometheus' }] })
    const db = free.database.db
    const at = new Date().toISOString()
    const env = await db
      .insertInto('environments')
      .values({ project_id: project.id, name: 'staging', slug: 'staging', created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow()
    await post(
      free,
      `${project.full_path}/prometheus/alerts/notify.json`,
      prometheusPayload([
        firing('E1', { labels: { alertname: 'E1', svc_environment_name: 'staging' } }),
        firing('E2', { labels: { alertname: 'E2', gitlab_environment_name: 'staging' } }),
        firing('E3', { labels: { alertname: 'E3', svc_environment_name: 'Staging' } }),
      ]),
    )
    expect((await alertsOf(db, project)).map((a) => a.environment_id)).toEqual([env.id, env.id, null])
  })
})
