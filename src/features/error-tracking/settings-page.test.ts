import * as Sentry from '@sentry/node'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'

let server: TestServer
let db: Db
let api: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  api = client(`${server.url}/api/v4`)
})
afterAll(async () => {
  await Sentry.close()
  await server.close()
})

interface PageResponse {
  status: number
  location: string | null
  headers: Headers
  text: string
}

async function visit(method: string, path: string, session?: TestSession, form?: [string, string][]): Promise<PageResponse> {
  const headers: Record<string, string> = { accept: 'text/html' }
  if (session) headers.cookie = session.cookie
  let body: string | undefined
  if (form) {
    body = new URLSearchParams(form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' })
  return { status: response.status, location: response.headers.get('location'), headers: response.headers, text: await response.text() }
}

function submit(session: TestSession, path: string, fields: [string, string][], token: string | null = session.csrfToken) {
  return visit('POST', path, session, token === null ? fields : [['authenticity_token', token], ...fields])
}

interface Member {
  user: User
  session: TestSession
  token: string
}

async function member(project: ProjectRow, accessLevel: number | null): Promise<Member> {
  const user = await createTestUser(db)
  if (accessLevel !== null) await addTestMember(db, { user, project, accessLevel })
  return { user, session: await createTestSession(server, user), token: (await createTestToken(db, user)).value }
}

async function privateProject(name?: string) {
  const group = await createTestGroup(db, { visibility: 'private' })
  return createTestProject(db, { namespace: group, visibility: 'private', ...(name ? { name } : {}) })
}

const settingsOf = (project: ProjectRow) => `/${project.full_path}/-/settings/operations`
const keysOf = (project: ProjectRow) => `/${project.full_path}/-/settings/operations/client_keys`
const ATTRIBUTE = 'project[error_tracking_setting_attributes]'

/** The section's form as a browser sends it: the hidden "false" before the checkbox, and the backend chosen. */
function settingsFields(values: { enabled: boolean; integrated?: 'true' | 'false' }): [string, string][] {
  return [
    ['_method', 'patch'],
    [`${ATTRIBUTE}[enabled]`, 'false'],
    ...(values.enabled ? [[`${ATTRIBUTE}[enabled]`, 'true'] as [string, string]] : []),
    ...(values.integrated ? [[`${ATTRIBUTE}[integrated]`, values.integrated] as [string, string]] : []),
  ]
}

function notice(text: string) {
  return `<div class="flash notice" role="alert">${text}</div>`
}

/** The section of the settings page, from its opening tag to its end. */
function sectionOf(page: string): string {
  const start = page.indexOf('<section class="box settings-section" id="js-error-tracking-settings"')
  expect(start, 'the error tracking section').toBeGreaterThanOrEqual(0)
  return page.slice(start, page.indexOf('</section>', start))
}

const dsnOnPage = (page: string) => /<input type="text" id="error-tracking-dsn" value="([^"]+)" readonly/.exec(page)?.[1] ?? null

async function apiKeys(project: ProjectRow, token: string) {
  const response = await api('GET', `/projects/${project.id}/error_tracking/client_keys`, { token })
  expect(response.status).toBe(200)
  return response.body as { id: number; active: boolean; public_key: string; tracker_dsn: string }[]
}

describe('the error tracking section of the monitor settings', () => {
  test('a Maintainer sees it off, with the GitLab backend offered and Sentry unavailable; a Developer sees the page without it', async () => {
    const project = await privateProject()
    const maintainer = await member(project, 40)
    const page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
    expect(page.text).toContain('<h1>Monitor Settings</h1>')
    const section = sectionOf(page.text)
    expect(section).toContain('<h2 id="js-error-tracking-settings-heading">Error tracking</h2>')
    expect(section).toContain(`<form method="post" action="${settingsOf(project)}" class="error-tracking-settings">`)
    expect(section).toMatch(/<input type="hidden" name="project\[error_tracking_setting_attributes\]\[enabled\]" value="false" \/>/)
    expect(section).toMatch(
      /<input type="checkbox" id="error-tracking-enabled" name="project\[error_tracking_setting_attributes\]\[enabled\]" value="true"\s*\/>\s*<label for="error-tracking-enabled" class="inline-label">Active<\/label>/,
    )
    expect(section).toMatch(/<legend>Error tracking backend<\/legend>/)
    expect(section).toMatch(/id="error-tracking-backend-gitlab"[^>]*value="true"[^>]*checked\s*\/>/)
    expect(section).toMatch(/id="error-tracking-backend-sentry"[^>]*value="false"[^>]*disabled\s*\/>/)
    expect(section).toContain('Not available: this instance does not connect to a Sentry server.')
    expect(section).not.toContain('error-tracking-dsn')
    expect(section).toContain('No client keys yet')

    const developer = await member(project, 30)
    const developerPage = await visit('GET', settingsOf(project), developer.session)
    expect(developerPage.status).toBe(200)
    expect(developerPage.text).not.toContain('js-error-tracking-settings')
    expect(developerPage.text).not.toContain('client_keys')
    for (const level of [20, null]) {
      const other = await member(project, level)
      expect((await visit('GET', settingsOf(project), other.session)).status).toBe(404)
    }
  })

  test('saving it active with GitLab gives a DSN to copy; an SDK event sent to it shows in the error list', async () => {
    const project = await privateProject()
    const maintainer = await member(project, 40)
    const saved = await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'true' }))
    expect([saved.status, saved.location]).toEqual([302, settingsOf(project)])
    const page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.text).toContain(notice('Your changes have been saved'))
    const settings = await api('GET', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token })
    expect(settings.body).toMatchObject({ active: true, integrated: true })

    const [key] = await apiKeys(project, maintainer.token)
    const section = sectionOf(page.text)
    expect(section).toMatch(/id="error-tracking-enabled"[^>]*checked\s*\/>/)
    expect(section).toContain('<label for="error-tracking-dsn">Paste this Data Source Name (DSN) into your Sentry SDK.</label>')
    expect(section).toContain(
      `<input type="text" id="error-tracking-dsn" value="${key.tracker_dsn}" readonly />
    <button type="button" data-copy="error-tracking-dsn">Copy</button>`,
    )
    expect(section).toContain(`<li class="client-key" id="client_key_${key.id}">`)
    expect(section).toContain(`<code class="client-key-public">${key.public_key}</code>`)
    expect(section).toContain('<span class="badge client-key-status status-opened">Active</span>')

    // The DSN as copied from the page, given to the real SDK.
    const dsn = dsnOnPage(page.text)
    expect(dsn).toBe(key.tracker_dsn)
    Sentry.init({ dsn: dsn!, defaultIntegrations: false, environment: 'production' })
    const statuses: number[] = []
    Sentry.getClient()?.on('afterSendEvent', (_event, response) => statuses.push(response?.statusCode ?? 0))
    Sentry.captureException(new RangeError('basket total out of range'))
    expect(await Sentry.flush(10_000)).toBe(true)
    expect(statuses).toEqual([200])
    const list = await visit('GET', `/${project.full_path}/-/error_tracking`, maintainer.session)
    expect(list.status).toBe(200)
    expect(list.text).toMatch(/<a href="[^"]+\/details">RangeError basket total out of range<\/a>/)
  })

  test('switching it off keeps the keys and hides the DSN; saving again keeps one key', async () => {
    const project = await privateProject()
    const maintainer = await member(project, 40)
    await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'true' }))
    const off = await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: false, integrated: 'true' }))
    expect([off.status, off.location]).toEqual([302, settingsOf(project)])
    const page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.text).toContain(notice('Your changes have been saved'))
    expect(dsnOnPage(page.text)).toBeNull()
    expect(sectionOf(page.text)).not.toMatch(/id="error-tracking-enabled"[^>]*checked/)
    expect((await api('GET', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token })).body.active).toBe(false)
    await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'true' }))
    expect(await apiKeys(project, maintainer.token)).toHaveLength(1)
  })

  test('the Sentry backend is refused as the API refuses it, keeping the choices beside the reasons', async () => {
    const project = await privateProject()
    const maintainer = await member(project, 40)
    const refused = await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'false' }))
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('<p>The form has an error:</p>')
    expect(refused.text).toContain(
      '<li>Error tracking setting api url is a required field and Error tracking setting token is a required field</li>',
    )
    const section = sectionOf(refused.text)
    expect(section).toMatch(/id="error-tracking-enabled"[^>]*checked\s*\/>/)
    expect(section).toMatch(/id="error-tracking-backend-sentry"[^>]*disabled\s*checked\s*\/>/)
    expect(section).not.toMatch(/id="error-tracking-backend-gitlab"[^>]*checked/)
    // The API answers the same refusal, and nothing was saved.
    const put = await api('PUT', `/projects/${project.id}/error_tracking/settings`, {
      token: maintainer.token,
      body: { active: true, integrated: false },
    })
    expect(put.body).toEqual({
      status: 'error',
      message: 'Error tracking setting api url is a required field and Error tracking setting token is a required field',
    })
    expect((await api('GET', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token })).status).toBe(404)
  })

  test('client keys are created, deactivated, activated and deleted, with a notice each time', async () => {
    const project = await privateProject()
    const maintainer = await member(project, 40)
    const created = await submit(maintainer.session, keysOf(project), [])
    expect([created.status, created.location]).toEqual([302, `${settingsOf(project)}#js-error-tracking-settings`])
    let page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.text).toContain(notice('The client key was created.'))
    const [key] = await apiKeys(project, maintainer.token)
    expect(key.active).toBe(true)
    expect(page.text).toContain(`<label for="client_key_dsn_${key.id}" class="help">DSN</label>`)
    expect(page.text).toContain(`<input type="text" id="client_key_dsn_${key.id}" value="${key.tracker_dsn}" readonly />`)
    expect(page.text).toContain(`<button type="button" data-copy="client_key_dsn_${key.id}">Copy</button>`)

    const deactivated = await submit(maintainer.session, `${keysOf(project)}/${key.id}`, [
      ['_method', 'put'],
      ['active', 'false'],
    ])
    expect(deactivated.status).toBe(302)
    page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.text).toContain(notice('The client key is inactive.'))
    expect(page.text).toContain('<span class="badge client-key-status">Inactive</span>')
    expect((await apiKeys(project, maintainer.token))[0].active).toBe(false)
    expect(page.text).toMatch(
      /<button type="submit" class="small" aria-label="Activate client key svcet_[0-9a-f]{32}">\s*Activate\s*<\/button>/,
    )

    // An inactive key's DSN is refused by the collector, even with error tracking on.
    await api('PUT', `/projects/${project.id}/error_tracking/settings`, {
      token: maintainer.token,
      body: { active: true, integrated: true },
    })
    const refused = await fetch(`${server.url}/api/v4/error_tracking/collector/api/${project.id}/store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${key.public_key}` },
      body: JSON.stringify({ exception: { values: [{ type: 'E', value: 'v' }] }, transaction: 't' }),
    })
    expect(refused.status).toBe(404)

    await submit(maintainer.session, `${keysOf(project)}/${key.id}`, [
      ['_method', 'put'],
      ['active', 'true'],
    ])
    page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.text).toContain(notice('The client key is active.'))
    expect((await apiKeys(project, maintainer.token)).find((one) => one.id === key.id)?.active).toBe(true)

    const deleted = await submit(maintainer.session, `${keysOf(project)}/${key.id}`, [['_method', 'delete']])
    expect(deleted.status).toBe(302)
    page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.text).toContain(notice('The client key was deleted.'))
    expect(page.text).not.toContain(`client_key_${key.id}"`)
    expect((await apiKeys(project, maintainer.token)).map((one) => one.id)).not.toContain(key.id)
    // Gone, it is the 404 page; so is a key of another project.
    expect((await submit(maintainer.session, `${keysOf(project)}/${key.id}`, [['_method', 'delete']])).status).toBe(404)
    const other = await privateProject()
    const otherKey = await api('POST', `/projects/${other.id}/error_tracking/client_keys`, { token: server.rootToken })
    const foreign = await submit(maintainer.session, `${keysOf(project)}/${otherKey.body.id}`, [['_method', 'delete']])
    expect(foreign.status).toBe(404)
    expect(await apiKeys(other, server.rootToken)).toHaveLength(1)
  })

  test('a Developer or a stranger forging the forms gets the 404 page and changes nothing; no CSRF token is refused', async () => {
    const project = await privateProject()
    const maintainer = await member(project, 40)
    await submit(maintainer.session, keysOf(project), [])
    const [key] = await apiKeys(project, maintainer.token)
    for (const level of [30, null]) {
      const forger = await member(project, level)
      const forged = [
        await submit(forger.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'true' })),
        await submit(forger.session, keysOf(project), []),
        await submit(forger.session, `${keysOf(project)}/${key.id}`, [
          ['_method', 'put'],
          ['active', 'false'],
        ]),
        await submit(forger.session, `${keysOf(project)}/${key.id}`, [['_method', 'delete']]),
      ]
      expect(forged.map((response) => response.status)).toEqual([404, 404, 404, 404])
    }
    const withoutToken = [
      await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'true' }), null),
      await submit(maintainer.session, keysOf(project), [], null),
      await submit(maintainer.session, `${keysOf(project)}/${key.id}`, [['_method', 'delete']], 'forged'),
    ]
    expect(withoutToken.map((response) => response.status)).toEqual([422, 422, 422])
    expect(withoutToken[0].text).toContain('The change you requested was rejected')
    expect((await api('GET', `/projects/${project.id}/error_tracking/settings`, { token: maintainer.token })).status).toBe(404)
    expect(await apiKeys(project, maintainer.token)).toEqual([key])
    // A visitor is sent to sign in.
    const visitor = await visit('GET', settingsOf(project))
    expect([visitor.status, visitor.location]).toEqual([302, '/users/sign_in'])
  })

  test("the project's name stays text on the page", async () => {
    const project = await privateProject('<script>alert(1)</script>')
    const maintainer = await member(project, 40)
    await submit(maintainer.session, settingsOf(project), settingsFields({ enabled: true, integrated: 'true' }))
    const page = await visit('GET', settingsOf(project), maintainer.session)
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('<script>alert(1)</script>')
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })
})
