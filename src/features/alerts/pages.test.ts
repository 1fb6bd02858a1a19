import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
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

    const created = await submit(session, settingsOf(project), createFields({ name: 'Ops <Team>' }))
    expect(created.status).toBe(200)
    expect(created.text).toContain('Integration successfully saved.')
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

    expect((await submit(session, settingsOf(project), createFields({ name: 'first' }))).status).toBe(200)
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
    const reset = await submit(session, settingsOf(project), [
      ['operation', 'reset_token'],
      ['integration_id', String(prometheus.id)],
    ])
    expect(reset.status).toBe(200)
    expect(reset.text).toContain('The authorization key was reset.')
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
      submit(session, settingsOf(project), [
        ['operation', operation],
        ['integration_id', String(id)],
      ])

    const off = await act('deactivate', http.id)
    expect(off.status).toBe(200)
    expect(off.text).toContain('The integration is inactive.')
    expect(off.text).toMatch(new RegExp(`id="integration_${http.id}"[\\s\\S]*?<td class="integration-status">Inactive</td>`))
    expect((await integrationsOf(project))[0].active).toBe(0)
    const on = await act('activate', http.id)
    expect(on.text).toContain('The integration is active.')
    expect((await integrationsOf(project))[0].active).toBe(1)

    const kept = await act('delete', prometheus.id)
    expect(kept.status).toBe(422)
    expect(kept.text).toContain('<div class="flash alert" role="alert">Legacy Prometheus integrations cannot currently be removed</div>')
    const removed = await act('delete', http.id)
    expect(removed.status).toBe(200)
    expect(removed.text).toContain('The integration was deleted.')
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

  test('a test alert goes through the real webhook with the key, and shows the alert it made or why it failed', async () => {
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
    const sent = await submit(session, settingsOf(project), fields('{"title": "Disk <full>", "severity": "high"}'))
    expect(sent.status).toBe(200)
    expect(sent.text).toContain('<div>Test alert sent successfully.</div>')
    expect(sent.text).toContain('<div>Alert #1: Disk &lt;full&gt;</div>')
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
    expect(inactive.text).toContain('Test alert failed (HTTP 403): the integration is not active.')
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
    expect(response.text).toContain('Test alert failed: the payload must be valid JSON.')
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
    expect(response.status).toBe(302)
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
    expect(first.text).toContain('<td class="alert-title">#23 Alert &lt;23&gt;</td>')
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
    const tracker = await post(createFields({ name: '', type: 'opsgenie', apiUrl: 'https://og.example.com/alerts' }))
    expect(tracker.status).toBe(200)
    expect(tracker.text).toContain('<option value="opsgenie">Opsgenie</option>')
    expect(tracker.text).toContain('<span class="integration-target">https://og.example.com/alerts</span>')
    expect(tracker.text).not.toContain('class="integration-token"')
    expect(tracker.text).not.toContain('class="test-alert"')

    const refused = await post(createFields({ name: 'http' }))
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<li>No other alert integration can be active while the Opsgenie integration is active</li>')
    expect((await post(createFields({ name: 'one', active: false }))).status).toBe(200)
    const two = await post(createFields({ name: 'two', active: false }))
    expect(two.status).toBe(200)
    expect(two.text.match(/class="integration-token"/g)).toHaveLength(2)
    expect(two.text.match(/class="test-alert"/g)).toHaveLength(2)
  })
})
