import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { addTestMember } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { flashOf } from '../sessions/testing.js'
import { pages } from '../settings-pages/testing.js'
import { startReceiver, type Receiver } from '../webhooks/testing.js'

// A group's webhooks pages on Premium: the project's pages for the group's hooks, with the group's own switches, in
// the group's layout, for its Owners only.

let server: TestServer
let free: TestServer
let receiver: Receiver
let api: ReturnType<typeof client>
let web: ReturnType<typeof pages>
let owner: Person
let maintainer: Person
let ownerSession: TestSession
let maintainerSession: TestSession
let group: Record<string, any>

const PAGE = '/groups/orbit/-/hooks'

beforeAll(async () => {
  ;[server, free, receiver] = await Promise.all([startTestServer({ SVC_TIER: 'premium' }), startTestServer(), startReceiver()])
  const db = server.database.db
  api = client(`${server.url}/api/v4`)
  web = pages(server.url)
  owner = await createPerson(db, 'olga')
  maintainer = await createPerson(db, 'max')
  ownerSession = await createTestSession(server, owner.user)
  maintainerSession = await createTestSession(server, maintainer.user)
  const made = await api('POST', '/groups', { token: server.rootToken, body: { name: 'Orbit', path: 'orbit' } })
  expect(made.status).toBe(201)
  group = made.body
  const row = await db.selectFrom('namespaces').selectAll().where('id', '=', group.id).executeTakeFirstOrThrow()
  await addTestMember(db, { user: owner.user, group: row, accessLevel: AccessLevel.OWNER })
  await addTestMember(db, { user: maintainer.user, group: row, accessLevel: AccessLevel.MAINTAINER })
  await createRepositoryProject(api, owner, { name: 'Probe', path: 'probe', namespace_id: group.id })
  const allowed = await api('PUT', '/application/settings', {
    token: server.rootToken,
    body: { allow_local_requests_from_web_hooks_and_services: true },
  })
  expect(allowed.status).toBe(200)
})
afterAll(() => Promise.all([server.close(), free.close(), receiver.close()]))
beforeEach(() => {
  receiver.received.length = 0
})

describe("a group's webhooks pages", () => {
  test("offer an Owner the group's switches under the group's Settings; a Maintainer gets the 404 page", async () => {
    const res = await web.get(PAGE, ownerSession)
    expect(res.status).toBe(200)
    expect(res.text).toContain('<title>Webhooks · Orbit · svc</title>')
    expect(res.text).toContain('<a href="/groups/orbit/-/hooks" aria-current="page">Webhooks</a>')
    expect(res.text).toContain('<form method="post" action="/groups/orbit/-/hooks" class="hook-form">')
    for (const name of ['member_events', 'project_events', 'subgroup_events']) {
      expect(res.text).toMatch(new RegExp(`id="hook_${name}"\\s+name="hook\\[${name}\\]"\\s+value="1"`))
    }
    const forMaintainer = await web.get(PAGE, maintainerSession)
    expect(forMaintainer.status).toBe(404)
    expect((await web.get('/groups/orbit', maintainerSession)).text).not.toContain('/groups/orbit/-/hooks')
    expect((await web.post(PAGE, maintainerSession, { 'hook[url]': `${receiver.url}/x` })).status).toBe(404)
  })

  test('are the 404 page on Free, where groups have no hooks', async () => {
    const db = free.database.db
    const person = await createPerson(db, 'fay')
    const session = await createTestSession(free, person.user)
    const made = await client(`${free.url}/api/v4`)('POST', '/groups', { token: free.rootToken, body: { name: 'Free', path: 'free' } })
    const row = await db.selectFrom('namespaces').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow()
    await addTestMember(db, { user: person.user, group: row, accessLevel: AccessLevel.OWNER })
    expect((await pages(free.url).get('/groups/free/-/hooks', session)).status).toBe(404)
    expect((await pages(free.url).get('/groups/free/-/edit', session)).text).not.toContain('/groups/free/-/hooks')
  })

  test('an Owner adds a hook that hears members, tests it with the first project that has commits, reads the request and deletes it', async () => {
    const fields: [string, string][] = [
      ['hook[url]', `${receiver.url}/group`],
      ['hook[token]', 'group-secret'],
      ['hook[branch_filter_strategy]', 'all_branches'],
      ['hook[push_events]', '0'],
      ['hook[member_events]', '0'],
      ['hook[member_events]', '1'],
      ['hook[enable_ssl_verification]', '0'],
    ]
    const res = await web.post(PAGE, ownerSession, fields)
    expect([res.status, res.headers.location]).toEqual([302, PAGE])
    const [hook] = (await api('GET', `/groups/${group.id}/hooks`, { token: owner.token })).body
    expect(hook).toMatchObject({ url: `${receiver.url}/group`, member_events: true, push_events: false, group_id: group.id })
    const list = await web.get(PAGE, ownerSession)
    expect(flashOf(list.text)).toBe('Webhook was created')
    expect(list.text).toMatch(/<span class="badge">Member events<\/span>\s*<span class="badge">SSL Verification: disabled<\/span>/)

    const tested = await web.post(`${PAGE}/${hook.id}/test`, ownerSession, { trigger: 'push_events', from: 'edit' })
    expect([tested.status, tested.headers.location]).toEqual([302, `${PAGE}/${hook.id}/edit`])
    expect(
      receiver.received.map((request) => [request.path, request.headers['x-gitlab-event'], request.headers['x-gitlab-token']]),
    ).toEqual([['/group', 'Push Hook', 'group-secret']])
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ object_kind: 'push', project: { path_with_namespace: 'orbit/probe' } })
    const edit = await web.get(`${PAGE}/${hook.id}/edit`, ownerSession)
    expect(edit.status).toBe(200)
    expect(flashOf(edit.text)).toBe('Hook executed successfully: HTTP 200')
    const logId = /href="\/groups\/orbit\/-\/hooks\/\d+\/hook_logs\/(\d+)">View details/.exec(edit.text)?.[1]
    const details = await web.get(`${PAGE}/${hook.id}/hook_logs/${logId}`, ownerSession)
    expect(details.status).toBe(200)
    expect(details.text).toContain('<title>Request details · Orbit · svc</title>')
    expect(details.text).toContain('<strong>X-Gitlab-Event:</strong> Push Hook')

    const updated = await web.post(`${PAGE}/${hook.id}`, ownerSession, [['_method', 'put'], ...fields, ['hook[name]', 'Members']])
    expect([updated.status, updated.headers.location]).toEqual([302, `${PAGE}/${hook.id}/edit`])
    expect((await api('GET', `/groups/${group.id}/hooks/${hook.id}`, { token: owner.token })).body.name).toBe('Members')

    expect((await web.post(`${PAGE}/${hook.id}`, maintainerSession, { _method: 'delete' })).status).toBe(404)
    const deleted = await web.post(`${PAGE}/${hook.id}`, ownerSession, { _method: 'delete' })
    expect([deleted.status, deleted.headers.location]).toEqual([302, PAGE])
    expect((await api('GET', `/groups/${group.id}/hooks`, { token: owner.token })).body).toEqual([])
  })
})
