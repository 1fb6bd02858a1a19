import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { client } from '../../testing/http.js'
import { addProjectMember, createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { flashOf } from '../sessions/testing.js'
import { startReceiver, type Receiver } from '../webhooks/testing.js'
import { pages, XSS, type Fields } from './testing.js'

let server: TestServer
let receiver: Receiver
let api: ReturnType<typeof client>
let web: ReturnType<typeof pages>
let owner: Person
let developer: Person
let ownerSession: TestSession
let developerSession: TestSession
let project: Record<string, any>

const PAGE = '/wanda/relay/-/hooks'

/** The form as a browser sends it: each switch's hidden "0", then "1" for those ticked. */
function hookFields(values: { url: string; token?: string; name?: string; on?: string[]; strategy?: string; filter?: string }): Fields {
  const on = values.on ?? ['push_events']
  const fields: [string, string][] = [
    ['hook[url]', values.url],
    ['hook[name]', values.name ?? ''],
    ['hook[description]', ''],
    ['hook[token]', values.token ?? ''],
    ['hook[branch_filter_strategy]', values.strategy ?? 'all_branches'],
    ['hook[push_events_branch_filter]', values.filter ?? ''],
    ['hook[custom_webhook_template]', ''],
  ]
  for (const name of [
    'push_events',
    'tag_push_events',
    'issues_events',
    'note_events',
    'merge_requests_events',
    'enable_ssl_verification',
  ]) {
    fields.push([`hook[${name}]`, '0'])
    if (on.includes(name)) fields.push([`hook[${name}]`, '1'])
  }
  return fields
}

async function apiHooks(): Promise<any[]> {
  return (await api('GET', `/projects/${project.id}/hooks`, { token: owner.token })).body
}

async function hookRow(id: number) {
  return server.database.db.selectFrom('web_hooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startTestServer(), startReceiver()])
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'wanda')
  developer = await createPerson(db, 'devon')
  ownerSession = await createTestSession(server, owner.user)
  developerSession = await createTestSession(server, developer.user)
  project = await createRepositoryProject(api, owner, { name: 'Relay', path: 'relay', visibility: 'private' })
  await addProjectMember(db, developer, project.id, AccessLevel.DEVELOPER)
  const allowed = await api('PUT', '/application/settings', {
    token: server.rootToken,
    body: { allow_local_requests_from_web_hooks_and_services: true },
  })
  expect(allowed.status).toBe(200)
})
afterAll(() => Promise.all([server.close(), receiver.close()]))
beforeEach(() => {
  receiver.received.length = 0
  receiver.answer = () => ({ status: 200, body: 'ok' })
})

describe('the webhooks page', () => {
  test('shows a Maintainer the Settings entry, the form with push events ticked, and no hooks yet', async () => {
    const res = await web.get(PAGE, ownerSession)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<title>Webhooks · Wanda / Relay · svc</title>')
    expect(res.text).toContain('<a href="/wanda/relay/-/hooks" aria-current="page">Webhooks</a>')
    expect(res.text).toContain('<form method="post" action="/wanda/relay/-/hooks" class="hook-form">')
    expect(res.text).toMatch(/id="hook_push_events"\s+name="hook\[push_events\]"\s+value="1"\s+checked/)
    expect(res.text).toMatch(/id="hook_enable_ssl_verification"\s+name="hook\[enable_ssl_verification\]"\s+value="1"\s+checked/)
    expect(res.text).toMatch(/id="hook_issues_events"\s+name="hook\[issues_events\]"\s+value="1"\s+aria-describedby/)
    expect(res.text).toContain(
      '<p class="help" id="hook_job_events_help">A job&#39;s status changes. svc has no such events yet, so this never fires.</p>',
    )
    expect(res.text).toContain('<h2 id="webhooks-index-heading">Webhooks (0)</h2>')
    expect(res.text).toContain('No webhooks enabled. Select trigger events above.')
  })

  test('is the 404 page for a Developer, who may not add a hook either', async () => {
    expect((await web.get(PAGE, developerSession)).status).toBe(404)
    expect((await web.post(PAGE, developerSession, hookFields({ url: `${receiver.url}/dev` }))).status).toBe(404)
    expect(await apiHooks()).toEqual([])
  })

  test('a refused hook comes back with what was typed, escaped, and the message beside its field; a forged form changes nothing', async () => {
    const res = await web.post(PAGE, ownerSession, hookFields({ url: 'ftp://example.com/x', name: XSS, on: ['issues_events'] }))
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>URL is blocked: Only allowed schemes are http, https</li>')
    expect(res.text).toContain('<p class="field-error" id="hook_url_error">URL is blocked: Only allowed schemes are http, https</p>')
    expect(res.text).toMatch(/name="hook\[url\]"\s+value="ftp:\/\/example.com\/x"/)
    expect(res.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(res.text).not.toContain(XSS)
    expect(res.text).toMatch(/id="hook_issues_events"\s+name="hook\[issues_events\]"\s+value="1"\s+checked/)
    expect(res.text).not.toMatch(/id="hook_push_events"\s+name="hook\[push_events\]"\s+value="1"\s+checked/)
    expect(res.text).toContain('<details class="add-webhook" open>')
    const badFilter = await web.post(PAGE, ownerSession, hookFields({ url: `${receiver.url}/x`, strategy: 'regex', filter: '(' }))
    expect(badFilter.status).toBe(422)
    expect(badFilter.text).toMatch(
      /<p class="field-error" id="hook_push_events_branch_filter_error">Push events branch filter not valid RE2 syntax: [^<]+<\/p>/,
    )
    const forged = await web.post(PAGE, ownerSession, hookFields({ url: `${receiver.url}/forged` }), null)
    expect(forged.status).toBe(422)
    expect(await apiHooks()).toEqual([])
  })
})

describe('a hook made, tested, edited and deleted on the page', () => {
  let hookId: number

  test('adding one lists it with its triggers, as the API shows it', async () => {
    const res = await web.post(
      PAGE,
      ownerSession,
      hookFields({ url: `${receiver.url}/relay`, token: 'sekret', name: 'Chat', on: ['push_events', 'issues_events'] }),
    )
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const [hook] = await apiHooks()
    hookId = hook.id
    expect(hook).toMatchObject({
      url: `${receiver.url}/relay`,
      name: 'Chat',
      push_events: true,
      issues_events: true,
      note_events: false,
      enable_ssl_verification: false,
      branch_filter_strategy: 'all_branches',
    })
    expect((await hookRow(hookId)).token).toBe('sekret')
    const page = await web.get(PAGE, ownerSession)
    expect(flashOf(page.text)).toBe('Webhook was created')
    expect(page.text).toContain('<h2 id="webhooks-index-heading">Webhooks (1)</h2>')
    expect(page.text).toMatch(
      /<span class="badge">Push events<\/span>\s*<span class="badge">Issues events<\/span>\s*<span class="badge">SSL Verification: disabled<\/span>/,
    )
    expect(page.text).toContain(`<a class="button small" href="${PAGE}/${hookId}/edit" aria-label="Edit ${receiver.url}/relay">Edit</a>`)
  })

  test("Test sends the trigger's sample and says what came back at the top of the page, and the request is listed with its details", async () => {
    const res = await web.post(`${PAGE}/${hookId}/test`, ownerSession, { trigger: 'push_events', from: 'edit' })
    expect([res.status, res.headers.location]).toEqual([302, `${PAGE}/${hookId}/edit`])
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]).toMatchObject({ path: '/relay', headers: { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'sekret' } })
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ object_kind: 'push', ref: 'refs/heads/main', project_id: project.id })
    const edit = await web.get(`${PAGE}/${hookId}/edit`, ownerSession)
    expect(flashOf(edit.text)).toBe('Hook executed successfully: HTTP 200')
    const [log] = (await api('GET', `/projects/${project.id}/hooks/${hookId}/events`, { token: owner.token })).body
    expect(edit.text).toMatch(
      new RegExp(
        `<tr id="hook_log_${log.id}">\\s*<td><span class="badge success">200</span></td>\\s*<td><span class="badge">Push Hook</span></td>\\s*<td>\\d+\\.\\d\\d sec</td>`,
      ),
    )
    const details = await web.get(`${PAGE}/${hookId}/hook_logs/${log.id}`, ownerSession)
    expect(details.status).toBe(200)
    expect(details.text).toContain(`<dd><code>POST ${receiver.url}/relay</code> <span class="badge success">200</span></dd>`)
    expect(details.text).toContain('<strong>X-Gitlab-Event:</strong> Push Hook')
    expect(details.text).toContain('<strong>X-Gitlab-Token:</strong> [REDACTED]')
    expect(details.text).toContain('&quot;object_kind&quot;: &quot;push&quot;')
    expect(details.text).toContain('<h2>Response body</h2>\n    <pre class="hook-body">ok</pre>')
    expect((await web.get(`${PAGE}/${hookId}/hook_logs/999999`, ownerSession)).status).toBe(404)
    expect((await web.get(`${PAGE}/${hookId}/hook_logs/${log.id}`, developerSession)).status).toBe(404)

    // Resending sends the logged body (e-mail addresses redacted, as GitLab logs it) with its Idempotency-Key, and says
    // what came back.
    receiver.answer = () => ({ status: 500, body: 'receiver down' })
    const retried = await web.post(`${PAGE}/${hookId}/hook_logs/${log.id}/retry`, ownerSession, {})
    expect([retried.status, retried.headers.location]).toEqual([302, `${PAGE}/${hookId}/edit`])
    expect(receiver.received).toHaveLength(2)
    expect(receiver.received[1].body).toBe(receiver.received[0].body.replace(/"email":"[^"]+"/, '"email":"[REDACTED]"'))
    expect(receiver.received[1].headers['idempotency-key']).toBe(receiver.received[0].headers['idempotency-key'])
    expect(flashOf((await web.get(`${PAGE}/${hookId}/edit`, ownerSession)).text)).toBe(
      'Hook executed successfully but returned HTTP 500 receiver down',
    )
  })

  test('a test with nothing to send says why', async () => {
    const res = await web.post(`${PAGE}/${hookId}/test`, ownerSession, { trigger: 'note_events' })
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    expect(flashOf((await web.get(PAGE, ownerSession)).text)).toBe('Hook execution failed: Ensure the project has notes.')
    expect(receiver.received).toEqual([])
  })

  test('editing shows the token masked, keeps it when the mask comes back, and refuses a bad URL with what was typed', async () => {
    const edit = await web.get(`${PAGE}/${hookId}/edit`, ownerSession)
    expect(edit.text).toMatch(/name="hook\[token\]"\s+value="\*{12}"/)
    expect(edit.text).not.toContain('sekret')
    const fields = hookFields({ url: `${receiver.url}/relay`, token: '************', name: 'Chat bot', on: ['note_events'] })
    const res = await web.post(`${PAGE}/${hookId}`, ownerSession, [['_method', 'put'], ...(fields as [string, string][])])
    expect([res.status, res.headers.location]).toEqual([302, `${PAGE}/${hookId}/edit`])
    const row = await hookRow(hookId)
    expect([row.name, row.token, row.push_events, row.note_events]).toEqual(['Chat bot', 'sekret', 0, 1])
    expect(flashOf((await web.get(`${PAGE}/${hookId}/edit`, ownerSession)).text)).toBe('Webhook was updated')

    const refused = await web.post(`${PAGE}/${hookId}`, ownerSession, [
      ['_method', 'put'],
      ...(hookFields({ url: 'http://', name: 'Renamed' }) as [string, string][]),
    ])
    expect(refused.status).toBe(422)
    expect(refused.text).toMatch(/<p class="field-error" id="hook_url_error">URL [^<]+<\/p>/)
    expect(refused.text).toMatch(/name="hook\[name\]"\s+value="Renamed"/)
    expect((await hookRow(hookId)).name).toBe('Chat bot')
  })

  test('deleting takes it off the list; a Developer cannot', async () => {
    expect((await web.post(`${PAGE}/${hookId}`, developerSession, { _method: 'delete' })).status).toBe(404)
    const res = await web.post(`${PAGE}/${hookId}`, ownerSession, { _method: 'delete' })
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const page = await web.get(PAGE, ownerSession)
    expect(flashOf(page.text)).toBe('Webhook was deleted')
    expect(page.text).toContain('Webhooks (0)')
    expect(await apiHooks()).toEqual([])
    expect((await web.get(`${PAGE}/${hookId}/edit`, ownerSession)).status).toBe(404)
  })
})
