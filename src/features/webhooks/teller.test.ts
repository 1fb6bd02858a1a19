import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { Change } from '../../core/changes.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { contextFor } from '../../testing/context.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { tellWebhooks } from './deliveries.js'
import { startReceiver, type Receiver } from './testing.js'

let free: TestServer
let premium: TestServer
let receiver: Receiver

beforeAll(async () => {
  ;[free, premium, receiver] = await Promise.all([startTestServer(), startTestServer({ SVC_TIER: 'premium' }), startReceiver()])
  for (const server of [free, premium]) {
    const res = await client(server.url)('PUT', '/api/v4/application/settings', {
      token: server.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    })
    expect(res.status, res.text).toBe(200)
  }
})
afterAll(async () => {
  await Promise.all([free.close(), premium.close(), receiver.close()])
})
beforeEach(() => {
  receiver.received.length = 0
})

/** A hook made as root through the API; answers its id. */
async function hook(server: TestServer, path: string, body: Record<string, unknown>): Promise<number> {
  const res = await client(server.url)('POST', `/api/v4${path}`, { token: server.rootToken, body })
  expect(res.status, res.text).toBe(201)
  return res.body.id
}

/** Tells the hooks of `change` in a transaction, as noticeChange does, then sends what it recorded. */
async function tell(server: TestServer, change: Change) {
  await server.database.db.transaction().execute((trx) => tellWebhooks(contextFor(server, null), trx, change))
  await server.runJobs()
  return receiver.received.map((request) => ({
    path: request.path,
    event: request.headers['x-gitlab-event'],
    body: JSON.parse(request.body),
  }))
}

describe('telling hooks of a change', () => {
  test('a new user reaches every system hook as System Hook, and no project hook', async () => {
    const project = await createTestProject(free.database.db, { namespace: await createTestGroup(free.database.db) })
    await hook(free, '/hooks', { url: `${receiver.url}/system`, repository_update_events: false })
    await hook(free, `/projects/${project.id}/hooks`, { url: `${receiver.url}/project`, push_events: true })
    const user = await createTestUser(free.database.db)
    const sent = await tell(free, { kind: 'user', action: 'create', userId: user.id, at: new Date() })
    const mine = sent.filter((request) => request.body.user_id === user.id)
    expect(mine).toEqual([{ path: '/system', event: 'System Hook', body: expect.objectContaining({ event_name: 'user_create' }) }])
  })

  test('on Premium, a group’s membership reaches the hooks of that group and the groups above it that listen for members', async () => {
    const db = premium.database.db
    const parent = await createTestGroup(db)
    const child = await createTestGroup(db, { parent })
    const sibling = await createTestGroup(db, { parent })
    await hook(premium, `/groups/${parent.id}/hooks`, { url: `${receiver.url}/parent`, member_events: true })
    await hook(premium, `/groups/${child.id}/hooks`, { url: `${receiver.url}/child`, member_events: true })
    await hook(premium, `/groups/${child.id}/hooks`, { url: `${receiver.url}/child-quiet`, member_events: false })
    await hook(premium, `/groups/${sibling.id}/hooks`, { url: `${receiver.url}/sibling`, member_events: true })
    const user = await createTestUser(db)
    await addTestMember(db, { user, group: child, accessLevel: 30 })
    const change: Change = {
      kind: 'member',
      action: 'add',
      source: { type: 'group', id: child.id },
      userId: user.id,
      actorId: user.id,
      accessLevel: 30,
      expiresAt: null,
      at: new Date(),
    }
    const sent = await tell(premium, change)
    const groupHooks = sent.filter((request) => request.event === 'Member Hook')
    expect(groupHooks.map((request) => request.path).sort()).toEqual(['/child', '/parent'])
    expect(groupHooks[0]!.body).toMatchObject({ event_name: 'user_add_to_group', group_id: child.id, user_id: user.id })
  })

  test('on Free, group hooks hear nothing', async () => {
    const db = free.database.db
    const group = await createTestGroup(db)
    await db
      .insertInto('web_hooks')
      .values({
        type: 'GroupHook',
        group_id: group.id,
        url: `${receiver.url}/group`,
        member_events: 1,
        created_at: '2026-12-01T00:00:00.000Z',
        updated_at: '2026-12-01T00:00:00.000Z',
      })
      .execute()
    const user = await createTestUser(db)
    const change: Change = {
      kind: 'member',
      action: 'add',
      source: { type: 'group', id: group.id },
      userId: user.id,
      actorId: user.id,
      accessLevel: 30,
      expiresAt: null,
      at: new Date(),
    }
    const sent = await tell(free, change)
    expect(sent.filter((request) => request.path === '/group')).toEqual([])
  })

  test('on Premium, a project made in a group reaches the group hooks that listen for projects, unless disabled for a while', async () => {
    const db = premium.database.db
    const group = await createTestGroup(db)
    await hook(premium, `/groups/${group.id}/hooks`, { url: `${receiver.url}/listening`, project_events: true })
    await hook(premium, `/groups/${group.id}/hooks`, { url: `${receiver.url}/deaf`, project_events: false })
    const disabled = await hook(premium, `/groups/${group.id}/hooks`, { url: `${receiver.url}/disabled`, project_events: true })
    await db
      .updateTable('web_hooks')
      .set({ recent_failures: 4, disabled_until: new Date(Date.now() + 60_000).toISOString() })
      .where('id', '=', disabled)
      .execute()
    const project = await createTestProject(db, { namespace: group })
    const sent = await tell(premium, { kind: 'project', action: 'create', projectId: project.id, actorId: 1, at: new Date() })
    expect(sent.filter((request) => request.event === 'Project Hook')).toEqual([
      {
        path: '/listening',
        event: 'Project Hook',
        body: expect.objectContaining({ event_name: 'project_create', project_id: project.id }),
      },
    ])
  })

  test('a change made through the API is told: a project member added reaches the system hooks', async () => {
    const db = free.database.db
    await hook(free, '/hooks', { url: `${receiver.url}/api-system` })
    const project = await createTestProject(db, { namespace: await createTestGroup(db) })
    const user = await createTestUser(db)
    const added = await client(free.url)('POST', `/api/v4/projects/${project.id}/members`, {
      token: free.rootToken,
      body: { user_id: user.id, access_level: 30 },
    })
    expect(added.status, added.text).toBe(201)
    await free.runJobs()
    const told = receiver.received.filter((request) => request.path === '/api-system').map((request) => JSON.parse(request.body))
    expect(told).toEqual([
      expect.objectContaining({ event_name: 'user_add_to_team', project_id: project.id, user_id: user.id, access_level: 'Developer' }),
    ])
  })
})
