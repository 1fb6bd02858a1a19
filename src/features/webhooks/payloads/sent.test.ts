import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import type { Change } from '../../../core/changes.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../../testing/factories.js'
import { contextFor } from '../../../testing/context.js'
import { client } from '../../../testing/http.js'
import type { TestServer } from '../../../testing/server.js'
import { createTestAlertIntegration } from '../../alerts/testing.js'
import { createCaller, memberRowOf } from '../../members/testing.js'
import { webClient } from '../../sessions/testing.js'
import { startReceiver, type Receiver } from '../testing.js'

// End to end: a change made through the API or a sign-in reaches a real receiver on loopback as GitLab sends it.

let server: TestServer
let receiver: Receiver
let request: ReturnType<typeof client>
let noticeChange: typeof import('../../change-notices/index.js').noticeChange

beforeAll(async () => {
  // The app and its tellers are loaded afresh: test files share their worker's modules, and others reload them.
  vi.resetModules()
  const { startTestServer } = await import('../../../testing/server.js')
  ;({ noticeChange } = await import('../../change-notices/index.js'))
  ;[server, receiver] = await Promise.all([startTestServer({ SVC_TIER: 'premium' }), startReceiver()])
  request = client(server.url)
  const settings = { allow_local_requests_from_web_hooks_and_services: true, throttle_protected_paths_enabled: false }
  const res = await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: settings })
  expect(res.status, res.text).toBe(200)
  await hook('/hooks', { url: `${receiver.url}/system`, token: 'system-secret' })
})
afterAll(() => Promise.all([server.close(), receiver.close()]))
beforeEach(() => {
  receiver.received.length = 0
})

async function hook(path: string, body: Record<string, unknown>) {
  const res = await request('POST', `/api/v4${path}`, { token: server.rootToken, body })
  expect(res.status, res.text).toBe(201)
}

/** What the receiver got once every due job has run, by path, header and body. */
async function sent() {
  await server.runJobs()
  return receiver.received.map((received) => ({
    path: received.path,
    event: received.headers['x-gitlab-event'],
    token: received.headers['x-gitlab-token'],
    body: JSON.parse(received.body) as Record<string, unknown>,
  }))
}

const seconds = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z')

describe('member changes', () => {
  test("a project's member added, changed and removed reach the system hooks as System Hook", async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const project = await createTestProject(db, { namespace: group, visibility: 'private' })
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    await hook(`/projects/${project.id}/hooks`, { url: `${receiver.url}/project`, push_events: true, issues_events: true })
    const user = await createTestUser(db)

    const added = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 30 },
    })
    expect(added.status).toBe(201)
    const row = (await memberRowOf(db, { userId: user.id, project }))!
    const body = {
      created_at: seconds(row.created_at),
      updated_at: seconds(row.updated_at),
      project_name: project.name,
      project_path: project.path,
      project_path_with_namespace: project.full_path,
      project_id: project.id,
      user_username: user.username,
      user_name: user.name,
      user_email: '[REDACTED]',
      user_id: user.id,
      access_level: 'Developer',
      project_visibility: 'private',
      event_name: 'user_add_to_team',
    }
    expect(await sent()).toEqual([{ path: '/system', event: 'System Hook', token: 'system-secret', body }])

    receiver.received.length = 0
    expect(
      (await request('PUT', `/api/v4/projects/${project.id}/members/${user.id}`, { token: owner.token, body: { access_level: 40 } }))
        .status,
    ).toBe(200)
    expect((await request('DELETE', `/api/v4/projects/${project.id}/members/${user.id}`, { token: owner.token })).status).toBe(204)
    const changed = await sent()
    expect(changed.map((request) => [request.path, request.body.event_name, request.body.access_level])).toEqual([
      ['/system', 'user_update_for_team', 'Maintainer'],
      ['/system', 'user_remove_from_team', 'Maintainer'],
    ])
  })

  test("a group's member reaches the system hooks and, as Member Hook, the hooks of the group and the groups above that listen for members", async () => {
    const db = server.database.db
    const parent = await createTestGroup(db)
    const group = await createTestGroup(db, { parent })
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    await hook(`/groups/${parent.id}/hooks`, { url: `${receiver.url}/parent`, member_events: true })
    await hook(`/groups/${group.id}/hooks`, { url: `${receiver.url}/quiet`, member_events: false, push_events: true })
    const user = await createTestUser(db)
    const res = await request('POST', `/api/v4/groups/${group.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 10, expires_at: '2999-12-31' },
    })
    expect(res.status).toBe(201)
    const row = (await memberRowOf(db, { userId: user.id, group }))!
    const body = {
      created_at: seconds(row.created_at),
      updated_at: seconds(row.updated_at),
      group_name: group.name,
      group_path: group.path,
      group_id: group.id,
      user_username: user.username,
      user_name: user.name,
      user_email: '[REDACTED]',
      user_id: user.id,
      group_access: 'Guest',
      group_plan: null,
      expires_at: '2999-12-31',
      event_name: 'user_add_to_group',
    }
    const received = await sent()
    expect(received.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: '/parent', event: 'Member Hook', token: undefined, body },
      { path: '/system', event: 'System Hook', token: 'system-secret', body },
    ])
  })

  test('a change whose transaction rolls back sends nothing', async () => {
    const db = server.database.db
    const project = await createTestProject(db, { namespace: await createTestGroup(db) })
    const user = await createTestUser(db)
    const change: Change = {
      kind: 'member',
      action: 'add',
      source: { type: 'project', id: project.id },
      userId: user.id,
      actorId: user.id,
      accessLevel: 30,
      expiresAt: null,
      at: new Date(),
    }
    const failed = db.transaction().execute(async (trx) => {
      await addTestMember(trx, { user, project, accessLevel: 30 })
      await noticeChange(contextFor(server, user), trx, change)
      throw new Error('rolled back')
    })
    await expect(failed).rejects.toThrow('rolled back')
    expect(await sent()).toEqual([])
  })
})

describe('alerts', () => {
  test('a new alert reaches no webhook: GitLab sends alerts to integrations only, and hooks have no switch for them', async () => {
    const db = server.database.db
    const project = await createTestProject(db, { namespace: await createTestGroup(db) })
    await createTestAlertIntegration(db, project.id, 'alert-key')
    const switches = { push_events: true, issues_events: true, note_events: true, merge_requests_events: true }
    await hook(`/projects/${project.id}/hooks`, { url: `${receiver.url}/project`, ...switches })
    const res = await fetch(`${server.url}/${project.full_path}/alerts/notify.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer alert-key' },
      body: JSON.stringify({ title: 'Disk full' }),
    })
    expect(res.status).toBe(200)
    expect(await sent()).toEqual([])
  })
})

describe('projects, groups and users', () => {
  test('a project made, renamed and deleted reaches the system hooks, and the group hooks that listen for projects', async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    await hook(`/groups/${group.id}/hooks`, { url: `${receiver.url}/group`, project_events: true })
    const res = await request('POST', '/api/v4/projects', { token: owner.token, body: { name: 'hooked', namespace_id: group.id } })
    expect(res.status).toBe(201)
    expect((await request('PUT', `/api/v4/projects/${res.body.id}`, { token: owner.token, body: { path: 'renamed' } })).status).toBe(200)
    expect((await request('DELETE', `/api/v4/projects/${res.body.id}`, { token: owner.token })).status).toBe(202)
    const received = await sent()
    expect(received.map((request) => [request.path, request.event, request.body.event_name])).toEqual([
      ['/system', 'System Hook', 'project_create'],
      ['/group', 'Project Hook', 'project_create'],
      ['/system', 'System Hook', 'project_rename'],
      ['/system', 'System Hook', 'project_destroy'],
      ['/group', 'Project Hook', 'project_destroy'],
    ])
    expect(received[2].body).toMatchObject({
      path: 'renamed',
      path_with_namespace: `${group.full_path}/renamed`,
      old_path_with_namespace: `${group.full_path}/hooked`,
      owner_name: group.name,
      owner_email: '',
      owners: [{ name: owner.user.name, email: '[REDACTED]' }],
    })
  })

  test('a group made with its Owner, and a user made, renamed, refused at sign-in while blocked and deleted', async () => {
    const db = server.database.db
    const creator = await createCaller(db, { can_create_group: 1 })
    const made = await request('POST', '/api/v4/groups', { token: creator.token, body: { name: 'Hooks', path: `hooks-${Date.now()}` } })
    expect(made.status).toBe(201)
    const name = `john${Date.now()}`
    const user = await request('POST', '/api/v4/users', {
      token: server.rootToken,
      body: { name: 'John Smith', username: name, email: `${name}@example.com`, password: 'a-long-password-1', skip_confirmation: true },
    })
    expect(user.status).toBe(201)
    expect(
      (await request('PUT', `/api/v4/users/${user.body.id}`, { token: server.rootToken, body: { username: `${name}-x` } })).status,
    ).toBe(200)
    expect((await request('POST', `/api/v4/users/${user.body.id}/block`, { token: server.rootToken })).status).toBe(201)
    expect((await webClient(server.url).signIn(`${name}-x`, 'a-long-password-1')).status).toBe(200)
    expect((await request('DELETE', `/api/v4/users/${user.body.id}`, { token: server.rootToken })).status).toBe(204)
    const received = await sent()
    expect(received.map((request) => [request.path, request.body.event_name])).toEqual([
      ['/system', 'group_create'],
      ['/system', 'user_add_to_group'],
      ['/system', 'user_create'],
      ['/system', 'user_rename'],
      ['/system', 'user_failed_login'],
      ['/system', 'user_destroy'],
    ])
    expect(received[3].body).toMatchObject({ username: `${name}-x`, old_username: name })
    expect(received[4].body).toMatchObject({ username: `${name}-x`, state: 'blocked', email: `${name}@example.com` })
  })
})
