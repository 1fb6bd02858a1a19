import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { client } from '../../testing/http.js'
import { createPerson, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { flashOf } from '../sessions/testing.js'
import { pages } from '../settings-pages/testing.js'
import { startReceiver, type Receiver } from '../webhooks/testing.js'

// The admin area's system hooks: the webhooks pages for the instance's hooks, with their own switches and one test.

let server: TestServer
let receiver: Receiver
let api: ReturnType<typeof client>
let web: ReturnType<typeof pages>
let adminSession: TestSession
let person: Person
let personSession: TestSession

const PAGE = '/admin/hooks'

beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startTestServer(), startReceiver()])
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  const root = await db.selectFrom('users').selectAll().where('username', '=', 'root').executeTakeFirstOrThrow()
  adminSession = await createTestSession(server, root)
  person = await createPerson(db, 'pat')
  personSession = await createTestSession(server, person.user)
})
afterAll(() => Promise.all([server.close(), receiver.close()]))
beforeEach(() => {
  receiver.received.length = 0
})

async function systemHooks(): Promise<any[]> {
  return (await api('GET', '/hooks', { token: server.rootToken })).body
}

describe('system hooks in the admin area', () => {
  test("offer an administrator the system hooks' switches, repository updates ticked; anyone else gets the 404 page", async () => {
    const res = await web.get(PAGE, adminSession)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<title>System hooks · Admin area · svc</title>')
    expect(res.text).toContain('<a href="/admin/hooks" aria-current="page">System hooks</a>')
    expect(res.text).toContain('<h2 id="webhooks-index-heading">System hooks (0)</h2>')
    expect(res.text).toMatch(/id="hook_repository_update_events"\s+name="hook\[repository_update_events\]"\s+value="1"\s+checked/)
    expect(res.text).not.toMatch(/id="hook_push_events"\s+name="hook\[push_events\]"\s+value="1"\s+checked/)
    const offered = [...res.text.matchAll(/id="hook_(\w+_events)"/g)].map((match) => match[1])
    expect(offered).toEqual(['push_events', 'repository_update_events', 'tag_push_events', 'merge_requests_events'])
    expect((await web.get(PAGE, personSession)).status).toBe(404)
    expect((await web.post(PAGE, personSession, { 'hook[url]': `${receiver.url}/x` })).status).toBe(404)
  })

  test('an administrator adds one, tests it with the sample, reads the request, and deletes it', async () => {
    const allowed = await api('PUT', '/application/settings', {
      token: server.rootToken,
      body: { allow_local_requests_from_system_hooks: true },
    })
    expect(allowed.status).toBe(200)
    const fields: [string, string][] = [
      ['hook[url]', `${receiver.url}/system`],
      ['hook[token]', 'system-secret'],
      ['hook[branch_filter_strategy]', 'all_branches'],
      ['hook[push_events]', '0'],
      ['hook[repository_update_events]', '0'],
      ['hook[repository_update_events]', '1'],
      ['hook[merge_requests_events]', '0'],
      ['hook[merge_requests_events]', '1'],
      ['hook[enable_ssl_verification]', '0'],
    ]
    const res = await web.post(PAGE, adminSession, fields)
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const [hook] = await systemHooks()
    expect(hook).toMatchObject({
      url: `${receiver.url}/system`,
      repository_update_events: true,
      merge_requests_events: true,
      push_events: false,
    })
    expect(flashOf((await web.get(PAGE, adminSession)).text)).toBe('Webhook was created')

    const tested = await web.post(`${PAGE}/${hook.id}/test`, adminSession, { from: 'edit' })
    expect([tested.status, tested.headers.location]).toEqual([302, `${PAGE}/${hook.id}/edit`])
    expect(
      receiver.received.map((request) => [request.path, request.headers['x-gitlab-event'], request.headers['x-gitlab-token']]),
    ).toEqual([['/system', 'System Hook', 'system-secret']])
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ event_name: 'project_create' })
    const edit = await web.get(`${PAGE}/${hook.id}/edit`, adminSession)
    expect(flashOf(edit.text)).toBe('Hook executed successfully: HTTP 200')
    const logId = /href="\/admin\/hooks\/\d+\/hook_logs\/(\d+)">View details/.exec(edit.text)?.[1]
    const details = await web.get(`${PAGE}/${hook.id}/hook_logs/${logId}`, adminSession)
    expect(details.status).toBe(200)
    expect(details.text).toContain('<span class="badge">System Hook</span>')
    expect((await web.get(`${PAGE}/${hook.id}/hook_logs/${logId}`, personSession)).status).toBe(404)

    const deleted = await web.post(`${PAGE}/${hook.id}`, adminSession, { _method: 'delete' })
    expect([deleted.status, deleted.headers.location]).toEqual([302, PAGE])
    expect(await systemHooks()).toEqual([])
  })
})
