import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { AlertRow, NewAlertRow, ProjectRow } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/index.js'
import { createTestGroup, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { eventsOf, systemNotesOf } from '../issuables/testing.js'
import { incidentDescription, startTime } from './incidents.js'
import { CloseIncident, CreateIncident } from './jobs.js'

let server: TestServer
let request: ReturnType<typeof client>
let db: TestServer['database']['db']

beforeAll(async () => {
  server = await startTestServer()
  request = client(`${server.url}/api/v4`)
  db = server.database.db
})
afterAll(() => server.close())

const CREATED = 1
const CLOSED = 3

async function project(options: { issues?: number } = {}): Promise<ProjectRow> {
  const group = await createTestGroup(db, {})
  const row = await createTestProject(db, { namespace: group })
  if (options.issues !== undefined)
    await db.updateTable('projects').set({ issues_access_level: options.issues }).where('id', '=', row.id).execute()
  return row
}

let nextIid = 1000
async function alert(projectRow: ProjectRow, fields: Partial<NewAlertRow> = {}): Promise<AlertRow> {
  const at = new Date().toISOString()
  nextIid += 1
  return db
    .insertInto('alerts')
    .values({
      project_id: projectRow.id,
      iid: nextIid,
      title: 'Disk full',
      started_at: '2026-04-27T10:10:22.265Z',
      payload: '{}',
      created_at: at,
      updated_at: at,
      ...fields,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

async function run(job: typeof CreateIncident | typeof CloseIncident, alertId: number) {
  await enqueueJob(db, job, { alertId })
  await server.runJobs()
  const failed = await db.selectFrom('jobs').select(['kind', 'last_error']).where('state', '!=', 'done').execute()
  expect(failed).toEqual([])
}

function reload(id: number) {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function issueRow(id: number) {
  return db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

async function bot() {
  return db.selectFrom('users').select(['id', 'username']).where('username', '=', 'alert-bot').executeTakeFirstOrThrow()
}

async function alertNotes(alertId: number) {
  const rows = await db.selectFrom('notes').select(['body', 'author_id', 'system']).where('alert_id', '=', alertId).orderBy('id').execute()
  return rows.map((row) => ({ body: row.body, author_id: Number(row.author_id), system: Number(row.system) }))
}

describe('CreateIncident', () => {
  test('opens an incident authored by the alert bot with the alert summary, links it and notes it on the alert', async () => {
    const p = await project()
    const a = await alert(p, {
      title: 'Disk full on db-1',
      description: 'Only 2% left',
      service: 'postgres',
      monitoring_tool: 'Datadog',
      hosts: JSON.stringify(['db-1', 'db-2']),
      severity: 1,
      started_at: '2026-04-05T00:07:00.000Z',
    })
    await run(CreateIncident, a.id)
    const linked = await reload(a.id)
    expect(linked.issue_id).not.toBeNull()
    const issue = await issueRow(linked.issue_id!)
    const alertBot = await bot()

    const response = await request('GET', `/projects/${p.id}/issues/${issue.iid}`, { token: server.rootToken })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      iid: issue.iid,
      project_id: p.id,
      title: 'Disk full on db-1',
      state: 'opened',
      issue_type: 'incident',
      type: 'INCIDENT',
      author: { id: alertBot.id, username: 'alert-bot' },
      description:
        '**Start time:** 05 April 2026, 12:07AM (UTC)  \n' +
        '**Severity:** high  \n' +
        '**Service:** postgres  \n' +
        '**Monitoring tool:** Datadog  \n' +
        '**Hosts:** db-1 db-2  \n' +
        '**Description:** Only 2% left  \n' +
        `**svc alert:** ${server.config.externalUrl}/${p.full_path}/-/alert_management/${a.iid}/details\n`,
    })
    expect(await alertNotes(a.id)).toEqual([{ body: `created incident #${issue.iid} for this alert`, author_id: alertBot.id, system: 1 }])
    expect(await eventsOf(db, 'Issue', issue.id)).toEqual([[CREATED, alertBot.id]])
    expect(await systemNotesOf(db, { issueId: issue.id })).toEqual([])
  })

  test('a second run, or a run for an alert that already has an incident, opens nothing more', async () => {
    const p = await project()
    const a = await alert(p)
    await run(CreateIncident, a.id)
    await run(CreateIncident, a.id)
    const issues = await db.selectFrom('issues').select('id').where('project_id', '=', p.id).execute()
    expect(issues).toHaveLength(1)
    expect((await reload(a.id)).issue_id).toBe(issues[0].id)
    expect(await alertNotes(a.id)).toHaveLength(1)
  })

  test('an alert that is gone is no work', async () => {
    await run(CreateIncident, 987654321)
    await run(CloseIncident, 987654321)
  })

  test('an alert titled by default opens "New: Incident <iid>"', async () => {
    const p = await project()
    const a = await alert(p, { title: 'New: Alert' })
    await run(CreateIncident, a.id)
    const issue = await issueRow((await reload(a.id)).issue_id!)
    expect(issue.title).toBe(`New: Incident ${issue.iid}`)
  })

  test('a Prometheus alert shows its query, and its incident markdown after a rule', async () => {
    const p = await project()
    const payload = {
      annotations: { title: 'High latency', svc_incident_markdown: '**`markdown example`**' },
      startsAt: '2026-04-27T13:10:22.265949279Z',
      generatorURL: 'http://prometheus:9090/graph?g0.expr=vector%281%29&g0.tab=1',
    }
    const a = await alert(p, {
      title: 'High latency',
      monitoring_tool: 'Prometheus',
      payload: JSON.stringify(payload),
      started_at: '2026-04-27T13:10:22.265Z',
    })
    await run(CreateIncident, a.id)
    const issue = await issueRow((await reload(a.id)).issue_id!)
    expect(issue.description).toBe(
      '**Start time:** 27 April 2026, 1:10PM (UTC)  \n' +
        '**Severity:** critical  \n' +
        '**full_query:** `vector(1)`  \n' +
        '**Monitoring tool:** Prometheus  \n' +
        `**svc alert:** ${server.config.externalUrl}/${p.full_path}/-/alert_management/${a.iid}/details\n` +
        '\n\n---\n\n' +
        '**`markdown example`**',
    )
  })

  test("GitLab's gitlab_incident_markdown annotation is read too; a generic payload's annotations are not", async () => {
    const alertRow = (fields: Partial<AlertRow>) =>
      ({
        iid: 7,
        severity: 4,
        started_at: '2026-01-01T12:00:00.000Z',
        hosts: '[]',
        description: null,
        service: null,
        ...fields,
      }) as AlertRow
    const withMarkdown = JSON.stringify({ annotations: { gitlab_incident_markdown: 'see runbook' } })
    expect(
      incidentDescription(alertRow({ monitoring_tool: 'Prometheus', payload: withMarkdown }), { full_path: 'g/p' }, 'http://svc'),
    ).toBe(
      '**Start time:** 01 January 2026, 12:00PM (UTC)  \n**Severity:** info  \n**Monitoring tool:** Prometheus  \n' +
        '**svc alert:** http://svc/g/p/-/alert_management/7/details\n\n\n---\n\nsee runbook',
    )
    expect(incidentDescription(alertRow({ monitoring_tool: null, payload: withMarkdown }), { full_path: 'g/p' }, 'http://svc')).toBe(
      '**Start time:** 01 January 2026, 12:00PM (UTC)  \n**Severity:** info  \n**svc alert:** http://svc/g/p/-/alert_management/7/details\n',
    )
  })

  test('start times read as GitLab writes them', () => {
    expect(startTime('2020-10-31T14:02:04.000Z')).toBe('31 October 2020, 2:02PM (UTC)')
    expect(startTime('2020-04-27T10:10:22.265Z')).toBe('27 April 2020, 10:10AM (UTC)')
    expect(startTime('2020-01-01T00:00:00.000Z')).toBe('01 January 2020, 12:00AM (UTC)')
    expect(startTime('2020-01-01T12:59:00.000Z')).toBe('01 January 2020, 12:59PM (UTC)')
  })

  test('a project without issues, archived, or being deleted gets no incident', async () => {
    const withoutIssues = await project({ issues: 0 })
    const archived = await project()
    await db.updateTable('projects').set({ archived: 1 }).where('id', '=', archived.id).execute()
    const deleted = await project()
    await db.updateTable('projects').set({ pending_delete: 1 }).where('id', '=', deleted.id).execute()
    for (const p of [withoutIssues, archived, deleted]) {
      const a = await alert(p)
      await run(CreateIncident, a.id)
      expect((await reload(a.id)).issue_id).toBeNull()
      expect(await db.selectFrom('issues').select('id').where('project_id', '=', p.id).execute()).toEqual([])
    }
  })
})

describe('CloseIncident', () => {
  async function alertWithIncident() {
    const p = await project()
    const a = await alert(p, { status: 2, ended_at: new Date().toISOString() })
    await run(CreateIncident, a.id)
    const linked = await reload(a.id)
    return { p, a: linked, issueId: linked.issue_id! }
  }

  test('closes the open incident as the alert bot with the auto-resolve note and the close event', async () => {
    const { p, a, issueId } = await alertWithIncident()
    const alertBot = await bot()
    await run(CloseIncident, a.id)
    const issue = await issueRow(issueId)
    const response = await request('GET', `/projects/${p.id}/issues/${issue.iid}`, { token: server.rootToken })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ state: 'closed', issue_type: 'incident', closed_by: { id: alertBot.id, username: 'alert-bot' } })
    expect(response.body.closed_at).toBe(issue.closed_at)
    expect(await systemNotesOf(db, { issueId })).toEqual(['automatically closed this incident because the alert resolved'])
    expect(await eventsOf(db, 'Issue', issueId)).toEqual([
      [CREATED, alertBot.id],
      [CLOSED, alertBot.id],
    ])
    const notes = await request('GET', `/projects/${p.id}/issues/${issue.iid}/notes`, { token: server.rootToken })
    expect(notes.status).toBe(200)
    expect(
      notes.body.map((note: { body: string; system: boolean; author: { username: string } }) => [
        note.body,
        note.system,
        note.author.username,
      ]),
    ).toEqual([['automatically closed this incident because the alert resolved', true, 'alert-bot']])

    // A second run leaves the closed incident as it is.
    await run(CloseIncident, a.id)
    expect(await issueRow(issueId)).toEqual(issue)
    expect(await systemNotesOf(db, { issueId })).toHaveLength(1)
    expect(await eventsOf(db, 'Issue', issueId)).toHaveLength(2)
  })

  test('an incident closed by someone, or no longer an incident, stays as it is', async () => {
    const first = await alertWithIncident()
    await db.updateTable('issues').set({ state: 'closed', closed_at: '2026-01-01T00:00:00.000Z' }).where('id', '=', first.issueId).execute()
    await run(CloseIncident, first.a.id)
    expect(await issueRow(first.issueId)).toMatchObject({ state: 'closed', closed_at: '2026-01-01T00:00:00.000Z', closed_by_id: null })
    expect(await systemNotesOf(db, { issueId: first.issueId })).toEqual([])

    const second = await alertWithIncident()
    await db.updateTable('issues').set({ issue_type: 'issue' }).where('id', '=', second.issueId).execute()
    await run(CloseIncident, second.a.id)
    expect(await issueRow(second.issueId)).toMatchObject({ state: 'opened' })
  })

  test('an alert without an incident is no work', async () => {
    const p = await project()
    const a = await alert(p, { status: 2 })
    await run(CloseIncident, a.id)
    expect(await db.selectFrom('issues').select('id').where('project_id', '=', p.id).execute()).toEqual([])
  })
})

describe('through the webhook', () => {
  async function webhookOf(
    p: ProjectRow,
    type: 'http' | 'prometheus',
    settings: { create_incident: boolean; auto_close_incident: boolean },
  ) {
    const response = await request('POST', `/projects/${p.id}/alert_management/http_integrations`, {
      token: server.rootToken,
      body: { type, name: type === 'http' ? 'Monitoring' : 'Prometheus', active: true, ...settings },
    })
    expect(response.status, response.text).toBe(201)
    const url = new URL(response.body.url as string)
    const post = client(`${url.origin}`)
    return (payload: unknown) => post('POST', url.pathname, { headers: { authorization: `Bearer ${response.body.token}` }, body: payload })
  }

  async function alertOf(p: ProjectRow, iid: number) {
    const response = await request('GET', `/projects/${p.id}/alert_management/alerts/${iid}`, { token: server.rootToken })
    expect(response.status, response.text).toBe(200)
    return response.body as { id: number; iid: number; issue_iid: number | null; status: string }
  }

  test('a payload opens an alert and its incident; the recovery payload closes the incident', async () => {
    const p = await project()
    const notify = await webhookOf(p, 'http', { create_incident: true, auto_close_incident: true })
    const fired = await notify({
      title: 'Checkout errors above 5%',
      description: 'Error rate of POST /checkout',
      start_time: '2026-11-23T08:30:00Z',
      severity: 'medium',
      service: 'shop',
      monitoring_tool: 'Grafana',
      hosts: ['web-1'],
      fingerprint: 'checkout-errors',
    })
    expect(fired.status, fired.text).toBe(200)
    expect(fired.body).toEqual([{ iid: expect.any(Number), title: 'Checkout errors above 5%' }])
    const iid = fired.body[0].iid as number
    await server.runJobs()
    const alert = await alertOf(p, iid)
    expect(alert.issue_iid).toEqual(expect.any(Number))
    const alertBot = await bot()

    const incident = await request('GET', `/projects/${p.id}/issues/${alert.issue_iid}`, { token: server.rootToken })
    expect(incident.status).toBe(200)
    expect(incident.body).toMatchObject({
      title: 'Checkout errors above 5%',
      issue_type: 'incident',
      state: 'opened',
      author: { username: 'alert-bot' },
      description:
        '**Start time:** 23 November 2026, 8:30AM (UTC)  \n' +
        '**Severity:** medium  \n' +
        '**Service:** shop  \n' +
        '**Monitoring tool:** Grafana  \n' +
        '**Hosts:** web-1  \n' +
        '**Description:** Error rate of POST /checkout  \n' +
        `**svc alert:** ${server.config.externalUrl}/${p.full_path}/-/alert_management/${iid}/details\n`,
    })
    expect((await alertNotes(alert.id)).filter((note) => note.body.startsWith('created incident'))).toEqual([
      { body: `created incident #${alert.issue_iid} for this alert`, author_id: alertBot.id, system: 1 },
    ])

    // Repeats of the alert open no second incident.
    expect((await notify({ title: 'Checkout errors above 5%', fingerprint: 'checkout-errors' })).status).toBe(200)
    await server.runJobs()
    expect(await db.selectFrom('issues').select('id').where('project_id', '=', p.id).execute()).toHaveLength(1)

    const recovered = await notify({ title: 'Checkout errors above 5%', fingerprint: 'checkout-errors', end_time: '2026-11-23T09:00:00Z' })
    expect(recovered.status, recovered.text).toBe(200)
    expect(recovered.body).toEqual([{ iid, title: 'Checkout errors above 5%' }])
    await server.runJobs()
    expect((await alertOf(p, iid)).status).toBe('resolved')
    const closed = await request('GET', `/projects/${p.id}/issues/${alert.issue_iid}`, { token: server.rootToken })
    expect(closed.body).toMatchObject({ state: 'closed', issue_type: 'incident', closed_by: { username: 'alert-bot' } })
    const notes = await request('GET', `/projects/${p.id}/issues/${alert.issue_iid}/notes`, { token: server.rootToken })
    expect(notes.body.map((note: { body: string; system: boolean }) => [note.body, note.system])).toEqual([
      ['automatically closed this incident because the alert resolved', true],
    ])
  })

  test("a Prometheus alert's incident carries the query and the incident markdown", async () => {
    const p = await project()
    const notify = await webhookOf(p, 'prometheus', { create_incident: true, auto_close_incident: true })
    const item = {
      status: 'firing',
      labels: { alertname: 'HighLatency', severity: 'warning' },
      annotations: { title: 'Latency above 500 ms', svc_incident_markdown: '## Runbook\n\nRestart the cache.' },
      startsAt: '2026-11-23T14:45:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus:9090/graph?g0.expr=latency_p99+%3E+0.5&g0.tab=1',
    }
    const envelope = (alerts: unknown[], status: string) => ({
      version: '4',
      groupKey: '{}:{alertname="HighLatency"}',
      status,
      receiver: 'svc',
      groupLabels: { alertname: 'HighLatency' },
      commonLabels: item.labels,
      commonAnnotations: item.annotations,
      externalURL: 'http://alertmanager:9093',
      alerts,
    })
    const fired = await notify(envelope([item], 'firing'))
    expect(fired.status, fired.text).toBe(200)
    const iid = fired.body[0].iid as number
    await server.runJobs()
    const alert = await alertOf(p, iid)
    const incident = await request('GET', `/projects/${p.id}/issues/${alert.issue_iid}`, { token: server.rootToken })
    expect(incident.body.description).toBe(
      '**Start time:** 23 November 2026, 2:45PM (UTC)  \n' +
        '**Severity:** low  \n' +
        '**full_query:** `latency_p99 > 0.5`  \n' +
        '**Monitoring tool:** Prometheus  \n' +
        `**svc alert:** ${server.config.externalUrl}/${p.full_path}/-/alert_management/${iid}/details\n` +
        '\n\n---\n\n## Runbook\n\nRestart the cache.',
    )
    const resolved = await notify(envelope([{ ...item, status: 'resolved', endsAt: '2026-11-23T15:00:00.000Z' }], 'resolved'))
    expect(resolved.status, resolved.text).toBe(200)
    await server.runJobs()
    const closed = await request('GET', `/projects/${p.id}/issues/${alert.issue_iid}`, { token: server.rootToken })
    expect(closed.body.state).toBe('closed')
  })

  test('an integration that opens no incidents opens none; one that does not close them leaves them open', async () => {
    const quiet = await project()
    const notifyQuiet = await webhookOf(quiet, 'http', { create_incident: false, auto_close_incident: true })
    const fired = await notifyQuiet({ title: 'Noise', fingerprint: 'noise' })
    expect(fired.status).toBe(200)
    await server.runJobs()
    expect((await alertOf(quiet, fired.body[0].iid)).issue_iid).toBeNull()
    expect(await db.selectFrom('issues').select('id').where('project_id', '=', quiet.id).execute()).toEqual([])

    const sticky = await project()
    const notifySticky = await webhookOf(sticky, 'http', { create_incident: true, auto_close_incident: false })
    const opened = await notifySticky({ title: 'Outage', fingerprint: 'outage' })
    await server.runJobs()
    const alert = await alertOf(sticky, opened.body[0].iid)
    expect(alert.issue_iid).not.toBeNull()
    expect((await notifySticky({ title: 'Outage', fingerprint: 'outage', end_time: '2026-11-23T10:00:00Z' })).status).toBe(200)
    await server.runJobs()
    expect((await alertOf(sticky, alert.iid)).status).toBe('resolved')
    const issue = await request('GET', `/projects/${sticky.id}/issues/${alert.issue_iid}`, { token: server.rootToken })
    expect(issue.body.state).toBe('opened')
  })
})
