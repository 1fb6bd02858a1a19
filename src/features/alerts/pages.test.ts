import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestIssue, createTestProject, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

let server: TestServer
let db: Db

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
})
afterAll(() => server.close())

interface PageResponse {
  status: number
  location: string | null
  text: string
}

async function visit(
  method: string,
  path: string,
  options: { session?: TestSession; form?: [string, string][] } = {},
): Promise<PageResponse> {
  const headers: Record<string, string> = {}
  if (options.session) headers.cookie = options.session.cookie
  let body: string | undefined
  if (options.form) {
    body = new URLSearchParams(options.form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' })
  return { status: response.status, location: response.headers.get('location'), text: await response.text() }
}

function submit(session: TestSession, path: string, fields: [string, string][]) {
  return visit('POST', path, { session, form: [['authenticity_token', session.csrfToken], ...fields] })
}

/** A form that succeeded sends the browser back to the page (post/redirect/get), which shows the notice once. */
async function submitAndFollow(session: TestSession, path: string, fields: [string, string][]): Promise<PageResponse> {
  const posted = await submit(session, path, fields)
  expect([posted.status, posted.location]).toEqual([302, path])
  const shown = await visit('GET', path, { session })
  expect(shown.status).toBe(200)
  return shown
}

function notice(text: string) {
  return `<div class="flash notice" role="alert">${text}</div>`
}

async function member(project: ProjectRow, accessLevel: number | null): Promise<{ user: User; session: TestSession }> {
  const user = await createTestUser(db)
  if (accessLevel !== null) await addTestMember(db, { user, project, accessLevel })
  return { user, session: await createTestSession(server, user) }
}

async function projectIn(visibility: 'public' | 'private' = 'private', depth = 1) {
  let group = await createTestGroup(db, { visibility })
  for (let level = 1; level < depth; level++) group = await createTestGroup(db, { visibility, parent: group })
  return createTestProject(db, { namespace: group, visibility })
}

function settingsOf(project: ProjectRow) {
  return `/${project.full_path}/-/settings/operations`
}

function alertsOf(project: ProjectRow) {
  return `/${project.full_path}/-/alert_management`
}

async function integrationsOf(project: ProjectRow) {
  return db.selectFrom('alert_integrations').selectAll().where('project_id', '=', project.id).orderBy('id').execute()
}

function createFields(values: { name: string; type?: string; active?: boolean; apiUrl?: string }): [string, string][] {
  return [
    ['operation', 'create'],
    ['type', values.type ?? 'http'],
    ['name', values.name],
    ['active', '0'],
    ...(values.active === false ? [] : [['active', '1'] as [string, string]]),
    ['api_url', values.apiUrl ?? ''],
  ]
}

describe('the alert settings page', () => {
  test('sends visitors to sign in, and is a 404 page for those who cannot see the project or are below Developer', async () => {
    const project = await projectIn('private')
    const anonymous = await visit('GET', settingsOf(project))
    expect(anonymous.status).toBe(302)
    expect(anonymous.location).toBe('/users/sign_in')
    for (const level of [null, 10, 20]) {
      const { session } = await member(project, level)
      const response = await visit('GET', settingsOf(project), { session })
      expect([level, response.status]).toEqual([level, 404])
      expect(response.text).toContain('404: Page not found')
    }
    const { session } = await member(project, 40)
    expect((await visit('GET', `/${project.full_path}x/-/settings/operations`, { session })).status).toBe(404)
  })

  test('a Maintainer creates an integration and sees its URL and key, at any namespace depth', async () => {
    const project = await projectIn('private', 3)
    const { session } = await member(project, 40)
    const empty = await visit('GET', settingsOf(project), { session })
    expect(empty.status).toBe(200)
    expect(empty.text).toContain('No integrations have been added yet.')
    expect(empty.text).toContain('Add new integration')
    // Opsgenie is a Premium type.
    expect(empty.text).not.toContain('value="opsgenie"')

    const created = await submitAndFollow(session, settingsOf(project), createFields({ name: 'Ops <Team>' }))
    expect(created.text).toContain(notice('Integration successfully saved.'))
    // A notice shows once.
    expect((await visit('GET', settingsOf(project), { session })).text).not.toContain('Integration successfully saved.')
    const [integration] = await integrationsOf(project)
    expect(integration).toMatchObject({ name: 'Ops <Team>', type: 'http', active: 1 })
    expect(created.text).toContain('Ops &lt;Team&gt;')
    expect(created.text).toContain(
      `<code class="integration-url">${server.url}/${project.full_path}/alerts/notify/ops--team/${integration.endpoint_identifier}.json</code>`,
    )
    expect(created.text).toContain(`<code class="integration-token">${integration.token}</code>`)
    expect(created.text).toContain(`id="test_alert_${integration.id}"`)
  })

  test('the form shows what was refused and writes nothing', async () => {
    const project = await projectIn()
    const { session } = await member(project, 40)
    const blank = await submit(session, settingsOf(project), createFields({ name: '  ' }))
    expect(blank.status).toBe(422)
    expect(blank.text).toContain('<li>Name can&#39;t be blank</li>')
    const badType = await submit(
      session,
      settingsOf(project),
      createFields({ name: 'x', type: 'opsgenie', apiUrl: 'https://og.example.com' }),
    )
    expect(badType.status).toBe(422)
    expect(badType.text).toContain('<li>type does not have a valid value</li>')
    const badUrl = await submit(
      session,
      settingsOf(project),
      createFields({ name: 'x', type: 'prometheus', apiUrl: 'ftp://p.example.com' }),
    )
    expect(badUrl.status).toBe(422)
    expect(badUrl.text).toContain('<li>API URL is blocked: Only allowed schemes are http, https</li>')
    expect(await integrationsOf(project)).toEqual([])

    expect((await submit(session, settingsOf(project), createFields({ name: 'first' }))).status).toBe(302)
    const second = await submit(session, settingsOf(project), createFields({ name: 'second' }))
    expect(second.status).toBe(422)
    expect(second.text).toContain('<li>Multiple integrations of a single type are not supported for this project</li>')
    expect(second.text).toContain('value="second"')
    expect((await integrationsOf(project)).map((i) => i.name)).toEqual(['first'])
  })

  test('a Maintainer resets a key; the Prometheus integration has its fixed URL', async () => {
    const project = await projectIn()
    const { session } = await member(project, 40)
    await submit(session, settingsOf(project), createFields({ name: '', type: 'prometheus', apiUrl: 'http://prometheus.example.com' }))
    const [prometheus] = await integrationsOf(project)
    expect(prometheus).toMatchObject({ name: 'Prometheus', type: 'prometheus', api_url: 'http://prometheus.example.com' })
    const reset = await submitAndFollow(session, settingsOf(project), [
      ['operation', 'reset_token'],
      ['integration_id', String(prometheus.id)],
    ])
    expect(reset.text).toContain(notice('The authorization key was reset.'))
    const [after] = await integrationsOf(project)
    expect(after.token).toMatch(/^[0-9a-f]{32}$/)
    expect(after.token).not.toBe(prometheus.token)
    expect(reset.text).toContain(`<code class="integration-token">${after.token}</code>`)
    expect(reset.text).toContain(`<code class="integration-url">${server.url}/${project.full_path}/prometheus/alerts/notify.json</code>`)

    const unknown = await submit(session, settingsOf(project), [
      ['operation', 'reset_token'],
      ['integration_id', '999999'],
    ])
    expect(unknown.status).toBe(404)
  })

  test('a Maintainer switches an integration off and on and deletes it; the Prometheus integration stays', async () => {
    const project = await projectIn()
    const { session } = await member(project, 40)
    await submit(session, settingsOf(project), createFields({ name: 'ops' }))
    await submit(session, settingsOf(project), createFields({ name: '', type: 'prometheus' }))
    const [http, prometheus] = await integrationsOf(project)
    const act = (operation: string, id: number) =>
      submitAndFollow(session, settingsOf(project), [
        ['operation', operation],
        ['integration_id', String(id)],
      ])

    const off = await act('deactivate', http.id)
    expect(off.text).toContain(notice('The integration is inactive.'))
    expect(off.text).toMatch(new RegExp(`id="integration_${http.id}"[\\s\\S]*?<td class="integration-status">Inactive</td>`))
    expect((await integrationsOf(project))[0].active).toBe(0)
    const on = await act('activate', http.id)
    expect(on.text).toContain('The integration is active.')
    expect((await integrationsOf(project))[0].active).toBe(1)

    const kept = await submit(session, settingsOf(project), [
      ['operation', 'delete'],
      ['integration_id', String(prometheus.id)],
    ])
    expect(kept.status).toBe(422)
    expect(kept.text).toContain('<div class="flash alert" role="alert">Legacy Prometheus integrations cannot currently be removed</div>')
    const removed = await act('delete', http.id)
    expect(removed.text).toContain(notice('The integration was deleted.'))
    expect((await integrationsOf(project)).map((i) => i.id)).toEqual([prometheus.id])

    const { session: developer } = await member(project, 30)
    const refused = await submit(developer, settingsOf(project), [
      ['operation', 'deactivate'],
      ['integration_id', String(prometheus.id)],
    ])
    expect(refused.status).toBe(404)
    expect((await integrationsOf(project))[0].active).toBe(1)
  })

  test('a Developer sees the integrations and the test form, but no URL, key or management form, and cannot manage', async () => {
    const project = await projectIn()
    const maintainer = await member(project, 40)
    await submit(maintainer.session, settingsOf(project), createFields({ name: 'ops' }))
    const [integration] = await integrationsOf(project)
    const { session } = await member(project, 30)
    const page = await visit('GET', settingsOf(project), { session })
    expect(page.status).toBe(200)
    expect(page.text).toContain('<td class="integration-name">ops</td>')
    expect(page.text).toContain(`id="test_alert_${integration.id}"`)
    expect(page.text).not.toContain(integration.token)
    expect(page.text).not.toContain(integration.endpoint_identifier)
    expect(page.text).not.toContain('Add new integration')
    expect(page.text).not.toContain('Reset Key')

    const create = await submit(session, settingsOf(project), createFields({ name: 'mine' }))
    expect(create.status).toBe(404)
    const reset = await submit(session, settingsOf(project), [
      ['operation', 'reset_token'],
      ['integration_id', String(integration.id)],
    ])
    expect(reset.status).toBe(404)
    expect(await integrationsOf(project)).toEqual([integration])
  })

  test('a test alert goes through the real webhook with the key; the page then says which alert it made, or why it failed', async () => {
    const project = await projectIn()
    const maintainer = await member(project, 40)
    await submit(maintainer.session, settingsOf(project), createFields({ name: 'ops' }))
    const [integration] = await integrationsOf(project)
    const { session } = await member(project, 30)
    const fields = (payload: string): [string, string][] => [
      ['operation', 'test_alert'],
      ['integration_id', String(integration.id)],
      ['payload', payload],
    ]
    const sent = await submitAndFollow(session, settingsOf(project), fields('{"title": "Disk <full>", "severity": "high"}'))
    expect(sent.text).toContain(notice('Test alert sent successfully. Alert #1: Disk &lt;full&gt;'))
    // The notice is at the top of the page, before the integrations.
    expect(sent.text.indexOf('Test alert sent successfully.')).toBeLessThan(sent.text.indexOf('id="integrations"'))
    const alert = await db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
    expect(alert).toMatchObject({ iid: 1, title: 'Disk <full>', severity: 1, integration_id: integration.id })

    // An inactive integration (Premium would allow a second one; here the first is switched off before any alert).
    const other = await projectIn()
    const owner = await member(other, 40)
    await submit(owner.session, settingsOf(other), createFields({ name: 'off', active: false }))
    const [off] = await integrationsOf(other)
    const inactive = await submit(owner.session, settingsOf(other), [
      ['operation', 'test_alert'],
      ['integration_id', String(off.id)],
      ['payload', '{"title": "again"}'],
    ])
    expect(inactive.status).toBe(422)
    expect(inactive.text).toContain(
      '<div class="flash alert" role="alert">Test alert failed (HTTP 403): the integration is not active.</div>',
    )
    expect(inactive.text).toContain('{&quot;title&quot;: &quot;again&quot;}</textarea>')
  })

  test('a test alert with a payload that is not JSON is refused before it is sent', async () => {
    const project = await projectIn()
    const { session } = await member(project, 30)
    const maintainer = await member(project, 40)
    await submit(maintainer.session, settingsOf(project), createFields({ name: 'ops' }))
    const [integration] = await integrationsOf(project)
    const response = await submit(session, settingsOf(project), [
      ['operation', 'test_alert'],
      ['integration_id', String(integration.id)],
      ['payload', '{"title": '],
    ])
    expect(response.status).toBe(422)
    expect(response.text).toContain('<div class="flash alert" role="alert">Test alert failed: the payload must be valid JSON.</div>')
    expect(response.text).toContain('{&quot;title&quot;: </textarea>')
  })

  test('a path the project had before a rename redirects to its current one', async () => {
    const project = await projectIn()
    const { session } = await member(project, 40)
    const renamed = await client(`${server.url}/api/v4`)('PUT', `/projects/${project.id}`, {
      token: server.rootToken,
      body: { path: `${project.path}-renamed` },
    })
    expect(renamed.status).toBe(200)
    const response = await visit('GET', settingsOf(project), { session })
    expect(response.status).toBe(301)
    expect(response.location).toBe(`${server.url}/${project.full_path}-renamed/-/settings/operations`)
  })

  test('forms need the authenticity token', async () => {
    const project = await projectIn()
    const { session } = await member(project, 40)
    const response = await visit('POST', settingsOf(project), { session, form: createFields({ name: 'x' }) })
    expect(response.status).toBe(422)
    expect(await integrationsOf(project)).toEqual([])
  })
})

describe('the alert list page', () => {
  async function insertAlerts(project: ProjectRow, count: number, status = 0) {
    const existing = await db.selectFrom('alerts').select('iid').where('project_id', '=', project.id).execute()
    for (let n = 1; n <= count; n++) {
      const iid = existing.length + n
      const at = new Date(Date.UTC(2026, 0, 1, 0, iid)).toISOString()
      await db
        .insertInto('alerts')
        .values({
          project_id: project.id,
          iid,
          title: `Alert <${iid}>`,
          severity: iid % 6,
          status,
          started_at: at,
          payload: '{}',
          events: iid,
          created_at: at,
          updated_at: at,
        })
        .execute()
    }
  }

  test('sends visitors to sign in and is a 404 page below Reporter', async () => {
    const project = await projectIn('public')
    const anonymous = await visit('GET', alertsOf(project))
    expect([anonymous.status, anonymous.location]).toEqual([302, '/users/sign_in'])
    for (const level of [null, 10]) {
      const { session } = await member(project, level)
      expect((await visit('GET', alertsOf(project), { session })).status).toBe(404)
    }
  })

  test('a Reporter sees the alerts newest first, filtered by status, in pages of 20', async () => {
    const project = await projectIn()
    await insertAlerts(project, 22)
    await insertAlerts(project, 1, 2)
    const { session } = await member(project, 20)
    const first = await visit('GET', alertsOf(project), { session })
    expect(first.status).toBe(200)
    expect(first.text).toContain('Page 1 of 2 (23 alerts)')
    expect(first.text).toContain(`<a rel="next" href="${alertsOf(project)}?page=2">Next</a>`)
    expect(first.text).toContain(`<td class="alert-title"><a href="${alertsOf(project)}/23/details">#23 Alert &lt;23&gt;</a></td>`)
    expect(first.text).toContain('<td class="alert-status">Resolved</td>')
    expect(first.text).toContain('<td class="alert-severity">Medium</td>')
    expect(first.text).toContain('<td class="alert-events">23</td>')
    expect(first.text).toContain('<time datetime="2026-01-01T00:23:00.000Z">2026-01-01 00:23:00 UTC</time>')
    expect(first.text).not.toContain('id="alert_3"')

    const second = await visit('GET', `${alertsOf(project)}?page=2`, { session })
    expect(second.text).toContain('id="alert_3"')
    expect(second.text).toContain('id="alert_1"')
    expect(second.text).not.toContain('id="alert_4"')
    expect(second.text).toContain(`<a rel="prev" href="${alertsOf(project)}">Prev</a>`)

    const resolved = await visit('GET', `${alertsOf(project)}?status=resolved`, { session })
    expect(resolved.text).toContain('Page 1 of 1 (1 alerts)')
    expect(resolved.text).toContain('id="alert_23"')
    expect(resolved.text).toContain('<strong class="status-tab current">Resolved</strong>')

    const ignored = await visit('GET', `${alertsOf(project)}?status=ignored`, { session })
    expect(ignored.text).toContain('No alerts to display.')
  })
})

describe('the alert details page', () => {
  const STARTED = '2026-01-02T03:04:05.000Z'
  const HOSTILE = '<script>alert(1)</script>'

  async function insertAlert(
    project: ProjectRow,
    values: { iid?: number; status?: number; issueId?: number | null; environmentId?: number } = {},
  ) {
    const payload = {
      title: HOSTILE,
      monitoring_tool: 'Prometheus <x>',
      labels: { instance: '<img src=x onerror=alert(1)>', region: 'eu' },
      hosts: ['db-1.example.com'],
      command: 'x'.repeat(300),
    }
    return db
      .insertInto('alerts')
      .values({
        project_id: project.id,
        iid: values.iid ?? 1,
        title: HOSTILE,
        description: 'Disk & memory',
        severity: 1,
        status: values.status ?? 0,
        started_at: STARTED,
        monitoring_tool: 'Prometheus <x>',
        service: 'api',
        hosts: JSON.stringify(['db-1.example.com']),
        environment_id: values.environmentId ?? null,
        payload: JSON.stringify(payload),
        events: 3,
        issue_id: values.issueId ?? null,
        created_at: STARTED,
        updated_at: STARTED,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
  }

  function detailsOf(project: ProjectRow, iid = 1) {
    return `${alertsOf(project)}/${iid}/details`
  }

  test('sends visitors to sign in; outsiders, Guests and unknown iids get the 404 page', async () => {
    const project = await projectIn('private', 2)
    await insertAlert(project)
    const anonymous = await visit('GET', detailsOf(project))
    expect([anonymous.status, anonymous.location]).toEqual([302, '/users/sign_in'])
    for (const level of [null, 10]) {
      const { session } = await member(project, level)
      const response = await visit('GET', detailsOf(project), { session })
      expect([level, response.status]).toEqual([level, 404])
      expect(response.text).toContain('404: Page not found')
      expect(response.text).not.toContain('alert(1)')
    }
    const { session } = await member(project, 20)
    for (const path of [
      detailsOf(project, 2),
      detailsOf(project, 0),
      `${alertsOf(project)}/abc/details`,
      `${alertsOf(project)}/99999999999/details`,
    ]) {
      const response = await visit('GET', path, { session })
      expect([path, response.status]).toEqual([path, 404])
    }
  })

  test('a Reporter reads every field, the payload and the incident, escaped, without status forms', async () => {
    const project = await projectIn('private', 2)
    const { user, session } = await member(project, 20)
    const incident = await createTestIssue(db, { project, author: user, issueType: 'incident' })
    const at = new Date().toISOString()
    const environment = await db
      .insertInto('environments')
      .values({ project_id: project.id, name: 'production', slug: 'production', external_url: null, created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow()
    await insertAlert(project, { issueId: incident.id, environmentId: environment.id })
    const response = await visit('GET', detailsOf(project), { session })
    expect(response.status).toBe(200)
    const text = response.text
    expect(text).not.toContain('<script>')
    expect(text).not.toContain('<img')
    expect(text).toContain(`<title>&lt;script&gt;alert(1)&lt;/script&gt; · Alerts · ${project.full_name} · svc</title>`)
    expect(text).toContain('<h1 class="alert-title">&lt;script&gt;alert(1)&lt;/script&gt;</h1>')
    expect(text).toContain('<span class="badge status-triggered">Triggered</span>')
    expect(text).toContain('<dd class="alert-severity">High</dd>')
    expect(text).toContain(`<dd class="alert-started"><time datetime="${STARTED}">2026-01-02 03:04:05 UTC</time></dd>`)
    expect(text).toContain('<dd class="alert-ended"><span class="none">None</span></dd>')
    expect(text).toContain('<dd class="alert-events">3</dd>')
    expect(text).toContain('<dd class="alert-environment">production</dd>')
    expect(text).toContain('<dd class="alert-monitoring-tool">Prometheus &lt;x&gt;</dd>')
    expect(text).toContain('<dd class="alert-service">api</dd>')
    expect(text).toContain('<dd class="alert-hosts"><ul class="plain"><li><code>db-1.example.com</code></li></ul></dd>')
    expect(text).toContain(`<dd class="alert-incident"><a href="/${project.full_path}/-/issues/${incident.iid}">#${incident.iid}</a></dd>`)
    expect(text).toContain('<dd class="alert-description">Disk &amp; memory</dd>')
    expect(text).toContain('<th scope="row">labels.instance</th>')
    expect(text).toContain('<span class="value">&lt;img src=x onerror=alert(1)&gt;</span>')
    expect(text).toContain('<th scope="row">labels.region</th>')
    expect(text).toContain(`<span class="value">${'x'.repeat(300)}</span>`)
    expect(text).toContain('<pre>[\n  &quot;db-1.example.com&quot;\n]</pre>')
    expect(text).toContain('No activity yet: status changes appear here.')
    expect(text).not.toContain('class="status-change"')
    expect(text).not.toContain('name="status"')
  })

  test('a Developer acknowledges, resolves and ignores the alert, each leaving a system note as the API does', async () => {
    const project = await projectIn('private')
    await insertAlert(project)
    const { user, session } = await member(project, 30)
    const page = await visit('GET', detailsOf(project), { session })
    expect(page.status).toBe(200)
    for (const status of ['acknowledged', 'resolved', 'ignored']) {
      expect(page.text).toContain(`<input type="hidden" name="status" value="${status}" />`)
    }
    expect(page.text).not.toContain('value="triggered"')
    for (const status of ['acknowledged', 'resolved', 'ignored']) {
      const form = new RegExp(
        `<form method="post" action="${detailsOf(project)}" class="status-change" id="status_${status}">\\s*<input type="hidden" name="authenticity_token" value="[^"]+" />`,
      )
      expect(page.text).toMatch(form)
    }

    const acknowledged = await submit(session, detailsOf(project), [['status', 'acknowledged']])
    expect([acknowledged.status, acknowledged.location]).toEqual([302, detailsOf(project)])
    const shown = await visit('GET', detailsOf(project), { session })
    expect(shown.text).toContain('<span class="badge status-acknowledged">Acknowledged</span>')
    expect(shown.text).toContain('value="triggered"')
    expect(shown.text).not.toContain('value="acknowledged"')
    expect(shown.text).toContain(`<span class="note-username">@${user.username}</span>`)
    expect(shown.text).toContain('<span class="note-body">changed the status to <strong>Acknowledged</strong></span>')

    expect((await submit(session, detailsOf(project), [['status', 'resolved']])).status).toBe(302)
    expect((await submit(session, detailsOf(project), [['status', 'ignored']])).status).toBe(302)
    const alert = await db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
    expect([alert.status, alert.ended_at]).toEqual([3, null])
    const notes = await db
      .selectFrom('notes')
      .select(['body', 'author_id', 'system'])
      .where('alert_id', '=', alert.id)
      .orderBy('id')
      .execute()
    expect(notes).toEqual([
      { body: 'changed the status to **Acknowledged**', author_id: user.id, system: 1 },
      { body: 'changed the status to **Resolved**', author_id: user.id, system: 1 },
      { body: 'changed the status to **Ignored**', author_id: user.id, system: 1 },
    ])
    const last = await visit('GET', detailsOf(project), { session })
    expect(last.text.match(/<li class="note system-note"/g)).toHaveLength(3)

    const unknown = await submit(session, detailsOf(project), [['status', 'closed']])
    expect(unknown.status).toBe(422)
    expect(unknown.text).toContain('<div class="flash alert" role="alert">Status is not included in the list</div>')
    expect((await submit(session, detailsOf(project, 2), [['status', 'resolved']])).status).toBe(404)
  })

  test('reopening a resolved alert while another with its fingerprint is open shows why and changes nothing', async () => {
    const project = await projectIn('private')
    await insertAlert(project, { iid: 1, status: 2 })
    await insertAlert(project, { iid: 2, status: 0 })
    await db
      .updateTable('alerts')
      .set({ fingerprint: 'f'.repeat(40) })
      .where('project_id', '=', project.id)
      .execute()
    const { session } = await member(project, 30)
    const refused = await submit(session, detailsOf(project, 1), [['status', 'triggered']])
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<div class="flash alert" role="alert">Fingerprint Cannot have multiple unresolved alerts</div>')
    expect(refused.text).toContain('<span class="badge status-resolved">Resolved</span>')
    const alert = await db
      .selectFrom('alerts')
      .selectAll()
      .where('project_id', '=', project.id)
      .where('iid', '=', 1)
      .executeTakeFirstOrThrow()
    expect(alert.status).toBe(2)
    expect(await db.selectFrom('notes').select('id').where('alert_id', '=', alert.id).execute()).toEqual([])
  })

  test('a Reporter cannot change the status, and a form without its CSRF token is refused', async () => {
    const project = await projectIn('private')
    await insertAlert(project)
    const reporter = await member(project, 20)
    const refused = await submit(reporter.session, detailsOf(project), [['status', 'acknowledged']])
    expect(refused.status).toBe(404)
    const developer = await member(project, 30)
    const forged = await visit('POST', detailsOf(project), { session: developer.session, form: [['status', 'acknowledged']] })
    expect(forged.status).toBe(422)
    expect(forged.text).toContain('The change you requested was rejected.')
    const wrong = await visit('POST', detailsOf(project), {
      session: developer.session,
      form: [
        ['authenticity_token', reporter.session.csrfToken],
        ['status', 'acknowledged'],
      ],
    })
    expect(wrong.status).toBe(422)
    const alert = await db.selectFrom('alerts').selectAll().where('project_id', '=', project.id).executeTakeFirstOrThrow()
    expect(alert.status).toBe(0)
    expect(await db.selectFrom('notes').select('id').where('alert_id', '=', alert.id).execute()).toEqual([])
  })
})

describe('on Premium', () => {
  let premium: TestServer

  beforeAll(async () => {
    premium = await startTestServer({ SVC_TIER: 'premium' })
  })
  afterAll(() => premium.close())

  test('the page offers Opsgenie, shows its target URL without a key or test form, and allows several HTTP integrations', async () => {
    const pdb = premium.database.db
    const group = await createTestGroup(pdb, { visibility: 'private' })
    const project = await createTestProject(pdb, { namespace: group, visibility: 'private' })
    const user = await createTestUser(pdb)
    await addTestMember(pdb, { user, project, accessLevel: 40 })
    const session = await createTestSession(premium, user)
    const post = async (fields: [string, string][]) => {
      const body = new URLSearchParams([['authenticity_token', session.csrfToken], ...fields]).toString()
      const response = await fetch(`${premium.url}${settingsOf(project)}`, {
        method: 'POST',
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      })
      return { status: response.status, text: await response.text() }
    }
    const show = async () => {
      const response = await fetch(`${premium.url}${settingsOf(project)}`, { headers: { cookie: session.cookie } })
      return response.text()
    }
    expect((await post(createFields({ name: '', type: 'opsgenie', apiUrl: 'https://og.example.com/alerts' }))).status).toBe(302)
    const tracker = { text: await show() }
    expect(tracker.text).toContain('<option value="opsgenie">Opsgenie</option>')
    expect(tracker.text).toContain('<span class="integration-target">https://og.example.com/alerts</span>')
    expect(tracker.text).not.toContain('class="integration-token"')
    expect(tracker.text).not.toContain('class="test-alert"')

    const refused = await post(createFields({ name: 'http' }))
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<li>No other alert integration can be active while the Opsgenie integration is active</li>')
    expect((await post(createFields({ name: 'one', active: false }))).status).toBe(302)
    expect((await post(createFields({ name: 'two', active: false }))).status).toBe(302)
    const two = { text: await show() }
    expect(two.text.match(/class="integration-token"/g)).toHaveLength(2)
    expect(two.text.match(/class="test-alert"/g)).toHaveLength(2)
  })
})
