import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import {
  addTestMember,
  createTestGroup,
  createTestIssue,
  createTestProject,
  createTestToken,
  createTestUser,
} from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestAlertIntegration } from './testing.js'

let server: TestServer
let db: Db
let request: ReturnType<typeof client>
let root: string
const KEY = 'fedcba9876543210fedcba9876543210'

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  request = client(`${server.url}/api/v4`)
  root = server.rootToken
})
afterAll(() => server.close())

async function member(project: ProjectRow, accessLevel: number) {
  const user = await createTestUser(db)
  await addTestMember(db, { user, project, accessLevel })
  return (await createTestToken(db, user)).value
}

async function projectWithIntegration(options: { autoClose?: boolean } = {}) {
  const group = await createTestGroup(db, { visibility: 'private' })
  const project = await createTestProject(db, { namespace: group, visibility: 'private' })
  await createTestAlertIntegration(db, project.id, KEY, { auto_close_incident: options.autoClose === false ? 0 : 1 })
  return project
}

async function notify(project: ProjectRow, payload: unknown) {
  const response = await fetch(`${server.url}/${project.full_path}/alerts/notify.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(payload),
  })
  expect(response.status).toBe(200)
  return (await response.json()) as { iid: number; title: string }[]
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('showing an alert', () => {
  test('answers the entity in its field order, with details, environment, incident and web_url', async () => {
    const project = await projectWithIntegration()
    const at = new Date().toISOString()
    const env = await db
      .insertInto('environments')
      .values({ project_id: project.id, name: 'prod', slug: 'prod', created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow()
    const payload = {
      title: 'Disk full',
      description: 'almost',
      start_time: '2026-02-03T04:05:06Z',
      service: 'db',
      monitoring_tool: 'Nagios',
      hosts: 'db1',
      severity: 'low',
      fingerprint: 'disk',
      svc_environment_name: 'prod',
      runbook: 'https://rb',
      extra: { nested: { value: 1 }, list: [1, 2] },
    }
    await notify(project, payload)
    await notify(project, payload)
    const user = await createTestUser(db)
    const issue = await createTestIssue(db, { project, author: user, issueType: 'incident' })
    await db.updateTable('alerts').set({ issue_id: issue.id }).where('project_id', '=', project.id).execute()
    const alert = await db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
    const response = await request('GET', `/projects/${project.id}/alert_management/alerts/1`, { token: root })
    expect(response.status).toBe(200)
    expect(response.text).toBe(
      JSON.stringify({
        id: alert.id,
        iid: 1,
        title: 'Disk full',
        description: 'almost',
        severity: 'low',
        status: 'triggered',
        service: 'db',
        monitoring_tool: 'Nagios',
        hosts: ['db1'],
        started_at: '2026-02-03T04:05:06.000Z',
        ended_at: null,
        event_count: 2,
        fingerprint: alert.fingerprint,
        environment: { id: Number(env.id), name: 'prod' },
        runbook: 'https://rb',
        details: {
          start_time: '2026-02-03T04:05:06Z',
          svc_environment_name: 'prod',
          runbook: 'https://rb',
          'extra.nested.value': 1,
          'extra.list': [1, 2],
        },
        payload,
        issue_iid: issue.iid,
        created_at: alert.created_at,
        updated_at: alert.updated_at,
        web_url: `${server.url}/${project.full_path}/-/alert_management/1/details`,
      }),
    )
  })

  test('an unknown alert is 404 "Alert Not Found"; a project the caller cannot see is 404; below Reporter 403', async () => {
    const project = await projectWithIntegration()
    await notify(project, { title: 'x' })
    expect(await request('GET', `/projects/${project.id}/alert_management/alerts/99`, { token: root })).toMatchObject({
      status: 404,
      body: { message: '404 Alert Not Found' },
    })
    const stranger = (await createTestToken(db, await createTestUser(db))).value
    expect(await request('GET', `/projects/${project.id}/alert_management/alerts/1`, { token: stranger })).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    })
    const guest = await member(project, 10)
    expect(await request('GET', `/projects/${project.id}/alert_management/alerts/1`, { token: guest })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    })
    expect(await request('GET', `/projects/${project.id}/alert_management/alerts`, { token: guest })).toMatchObject({ status: 403 })
    const reporter = await member(project, 20)
    expect((await request('GET', `/projects/${project.id}/alert_management/alerts/1`, { token: reporter })).status).toBe(200)
    expect((await request('GET', `/projects/${project.id}/alert_management/alerts/1`)).status).toBe(401)
  })
})

describe('listing alerts', () => {
  test('newest first by default, paginated with headers, filtered by status and search, sorted by every sort', async () => {
    const project = await projectWithIntegration()
    await notify(project, { title: 'Alpha disk', severity: 'low', fingerprint: 'a', start_time: '2026-01-03T00:00:00Z' })
    await pause()
    await notify(project, { title: 'Beta cpu', severity: 'critical', fingerprint: 'b', service: 'web', start_time: '2026-01-01T00:00:00Z' })
    await pause()
    await notify(project, { title: 'Gamma', severity: 'info', fingerprint: 'c', hosts: ['disk-host'], start_time: '2026-01-02T00:00:00Z' })
    await notify(project, { fingerprint: 'a' })
    await notify(project, { fingerprint: 'a' })
    await notify(project, { fingerprint: 'b', end_time: '2026-01-05T00:00:00Z' })
    await db.updateTable('alerts').set({ status: 3 }).where('project_id', '=', project.id).where('iid', '=', 3).execute()
    const iids = async (query: string) => {
      const response = await request('GET', `/projects/${project.id}/alert_management/alerts${query}`, { token: root })
      expect(response.status).toBe(200)
      return (response.body as { iid: number }[]).map((a) => a.iid)
    }
    expect(await iids('')).toEqual([3, 2, 1])
    expect(await iids('?sort=created_asc')).toEqual([1, 2, 3])
    expect(await iids('?sort=created_time_desc')).toEqual([3, 2, 1])
    expect(await iids('?sort=started_at_asc')).toEqual([2, 3, 1])
    expect(await iids('?sort=started_at_desc')).toEqual([1, 3, 2])
    expect(await iids('?sort=event_count_desc')).toEqual([1, 3, 2])
    expect(await iids('?sort=event_count_asc')).toEqual([2, 3, 1])
    expect(await iids('?sort=severity_desc')).toEqual([2, 1, 3])
    expect(await iids('?sort=severity_asc')).toEqual([3, 1, 2])
    expect(await iids('?sort=status_desc')).toEqual([1, 2, 3])
    expect(await iids('?sort=status_asc')).toEqual([3, 2, 1])
    expect(await iids('?sort=ended_at_asc')).toEqual([2, 1, 3])
    expect(await iids('?sort=ended_at_desc')).toEqual([3, 1, 2])
    expect((await iids('?sort=updated_desc'))[0]).toBe(2)
    expect(await iids('?status=resolved')).toEqual([2])
    expect(await iids('?status=triggered')).toEqual([1])
    expect(await iids('?status=ignored')).toEqual([3])
    expect(await iids('?status=acknowledged')).toEqual([])
    expect(await iids('?search=DISK')).toEqual([3, 1])
    expect(await iids('?search=web')).toEqual([2])
    expect(await iids('?search=cpu%20beta')).toEqual([2])
    expect(await iids('?search=Gamma%20disk')).toEqual([3])
    const page = await request('GET', `/projects/${project.id}/alert_management/alerts?per_page=2&page=2`, { token: root })
    expect(page.body.map((a: { iid: number }) => a.iid)).toEqual([1])
    expect(page.headers).toMatchObject({
      'x-page': '2',
      'x-per-page': '2',
      'x-total': '3',
      'x-total-pages': '2',
      'x-prev-page': '1',
      'x-next-page': '',
    })
    expect(await request('GET', `/projects/${project.id}/alert_management/alerts?status=open`, { token: root })).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    })
    expect(await request('GET', `/projects/${project.id}/alert_management/alerts?sort=title_asc`, { token: root })).toMatchObject({
      status: 400,
      body: { error: 'sort does not have a valid value' },
    })
  })
})

describe('changing an alert status', () => {
  test('Developer and up; resolving sets ended_at and leaves a note; reopening clears it; CloseIncident when configured', async () => {
    const project = await projectWithIntegration()
    await notify(project, { title: 'x', fingerprint: 'x' })
    const alert = await db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
    const reporter = await member(project, 20)
    const developer = await member(project, 30)
    const path = `/projects/${project.id}/alert_management/alerts/1`
    expect(await request('PUT', path, { token: reporter, body: { status: 'resolved' } })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    })
    expect(await request('PUT', path, { token: developer, body: {} })).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "status" not given' },
    })
    expect(await request('PUT', path, { token: developer, body: { status: 'closed' } })).toMatchObject({
      status: 400,
      body: { error: 'status does not have a valid value' },
    })
    const user = await createTestUser(db)
    const issue = await createTestIssue(db, { project, author: user, issueType: 'incident' })
    await db.updateTable('alerts').set({ issue_id: issue.id }).where('id', '=', alert.id).execute()
    const resolved = await request('PUT', path, { token: developer, body: { status: 'resolved' } })
    expect(resolved.status).toBe(200)
    expect(resolved.body).toMatchObject({ status: 'resolved', ended_at: expect.any(String) })
    const jobs = await db
      .selectFrom('jobs')
      .select('kind')
      .where('payload', '=', JSON.stringify({ alertId: alert.id }))
      .execute()
    expect(jobs.map((j) => j.kind)).toEqual(['alerts.close-incident'])
    const acknowledged = await request('PUT', path, { token: developer, body: { status: 'acknowledged' } })
    expect(acknowledged.body).toMatchObject({ status: 'acknowledged', ended_at: null })
    const notes = await db.selectFrom('notes').select('body').where('alert_id', '=', alert.id).orderBy('id').execute()
    expect(notes.map((n) => n.body)).toEqual([
      'logged an alert from **HTTP**',
      'changed the status to **Resolved**',
      'changed the status to **Acknowledged**',
    ])
    // The same status again changes nothing.
    expect((await request('PUT', path, { token: developer, body: { status: 'acknowledged' } })).status).toBe(200)
    expect(await db.selectFrom('notes').select('body').where('alert_id', '=', alert.id).execute()).toHaveLength(3)
    expect(
      await request('PUT', `/projects/${project.id}/alert_management/alerts/9`, { token: developer, body: { status: 'resolved' } }),
    ).toMatchObject({
      status: 404,
    })
  })

  test('reopening a resolved alert while another with its fingerprint is open is refused', async () => {
    const project = await projectWithIntegration()
    await notify(project, { fingerprint: 'r' })
    await notify(project, { fingerprint: 'r', end_time: '2026-01-01T00:00:00Z' })
    await notify(project, { fingerprint: 'r' })
    expect(
      await request('PUT', `/projects/${project.id}/alert_management/alerts/1`, { token: root, body: { status: 'triggered' } }),
    ).toMatchObject({
      status: 400,
      body: { message: { fingerprint: ['Cannot have multiple unresolved alerts'] } },
    })
  })
})
