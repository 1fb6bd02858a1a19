import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../../core/caller.js'
import type { Change } from '../../../core/changes.js'
import type { NamespaceRow, ProjectRow } from '../../../db/schema.js'
import { addTestMember, createTestGroup, createTestUser } from '../../../testing/factories.js'
import { contextFor } from '../../../testing/context.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { createCaller } from '../../members/testing.js'
import { flashOf, webClient } from '../../sessions/testing.js'
import { hookPayloadsOf } from './index.js'

// The system hooks' bodies after changes made through the API, field by field (GL doc/administration/system_hooks.md,
// Gitlab::HookData::ProjectBuilder, GroupBuilder, SubgroupBuilder and UserBuilder).

let server: TestServer
let free: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  ;[server, free] = await Promise.all([startTestServer({ SVC_TIER: 'premium' }), startTestServer({ SVC_TIER: 'free' })])
  request = client(server.url)
  const res = await request('PUT', '/api/v4/application/settings', {
    token: server.rootToken,
    body: { throttle_protected_paths_enabled: false },
  })
  expect(res.status).toBe(200)
})
afterAll(() => Promise.all([server.close(), free.close()]))

function payloadsOf(change: Change, on: TestServer = server) {
  return on.database.db.transaction().execute((trx) => hookPayloadsOf(contextFor(on, null), trx, change))
}

const seconds = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z')

function projectRow(id: number): Promise<ProjectRow> {
  return server.database.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function namespaceRow(id: number): Promise<NamespaceRow> {
  return server.database.db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

function projectChange(action: 'create' | 'destroy' | 'rename' | 'transfer' | 'update', projectId: number, oldPath?: string): Change {
  return { kind: 'project', action, projectId, actorId: 1, ...(oldPath ? { oldPathWithNamespace: oldPath } : {}), at: new Date() }
}

function projectBody(project: ProjectRow, event: string, owners: { name: string; email: string }[]) {
  return {
    event_name: event,
    created_at: seconds(project.created_at),
    updated_at: seconds(project.updated_at),
    name: project.name,
    path: project.path,
    path_with_namespace: project.full_path,
    project_id: project.id,
    project_namespace_id: project.namespace_id,
    owners,
    project_visibility: project.visibility_level === 0 ? 'private' : project.visibility_level === 10 ? 'internal' : 'public',
  }
}

describe('project_create, project_update, project_rename, project_transfer and project_destroy', () => {
  test('a personal project names its owner, whose private address is never shown', async () => {
    const creator = await createCaller(server.database.db)
    const res = await request('POST', '/api/v4/projects', { token: creator.token, body: { name: 'Store Cloud', visibility: 'internal' } })
    expect(res.status).toBe(201)
    const project = await projectRow(res.body.id)
    const owner = { name: creator.user.name, email: '[REDACTED]' }
    const created = { ...projectBody(project, 'project_create', [owner]), owner_name: creator.user.name, owner_email: '[REDACTED]' }
    expect(await payloadsOf(projectChange('create', project.id))).toEqual([
      { event: 'System Hook', trigger: 'system', scope: 'system', body: created },
    ])
    expect(created).toMatchObject({ path: 'store-cloud', path_with_namespace: `${creator.user.username}/store-cloud` })

    server.travel(2000)
    const updated = await request('PUT', `/api/v4/projects/${project.id}`, { token: creator.token, body: { description: 'new' } })
    expect(updated.status).toBe(200)
    const afterUpdate = await projectRow(project.id)
    expect((await payloadsOf(projectChange('update', project.id)))[0].body).toEqual({
      ...projectBody(afterUpdate, 'project_update', [owner]),
      owner_name: creator.user.name,
      owner_email: '[REDACTED]',
    })

    const oldPath = project.full_path
    const renamed = await request('PUT', `/api/v4/projects/${project.id}`, { token: creator.token, body: { path: 'underscore' } })
    expect(renamed.status).toBe(200)
    const afterRename = await projectRow(project.id)
    expect((await payloadsOf(projectChange('rename', project.id, oldPath)))[0].body).toEqual({
      ...projectBody(afterRename, 'project_rename', [owner]),
      owner_name: creator.user.name,
      owner_email: '[REDACTED]',
      old_path_with_namespace: oldPath,
    })
  })

  test("a group's project lists the group's Owners and names the group as its owner; on Premium the group's hooks hear its creation", async () => {
    const db = server.database.db
    const group = await createTestGroup(db, { name: 'Scores' })
    const first = await createCaller(db, { public_email: null })
    const second = await createTestUser(db)
    await db.updateTable('users').set({ public_email: second.email }).where('id', '=', second.id).execute()
    const developer = await createTestUser(db)
    await addTestMember(db, { user: first.user, group, accessLevel: 50 })
    await addTestMember(db, { user: developer, group, accessLevel: 30 })
    await addTestMember(db, { user: second, group, accessLevel: 50 })
    const res = await request('POST', '/api/v4/projects', { token: first.token, body: { name: 'Underscore', namespace_id: group.id } })
    expect(res.status).toBe(201)
    const project = await projectRow(res.body.id)
    const owners = [
      { name: first.user.name, email: '[REDACTED]' },
      { name: second.name, email: second.email },
    ]
    const body = projectBody(project, 'project_create', owners)
    expect(await payloadsOf(projectChange('create', project.id))).toEqual([
      { event: 'System Hook', trigger: 'system', scope: 'system', body: { ...body, owner_name: 'Scores', owner_email: '' } },
      { event: 'Project Hook', trigger: 'project_events', scope: 'project', body },
    ])

    // Moved to a personal namespace: transferred, with the path it had.
    const target = await namespaceRow(
      (await db.selectFrom('namespaces').select('id').where('owner_id', '=', first.user.id).executeTakeFirstOrThrow()).id,
    )
    const moved = await request('PUT', `/api/v4/projects/${project.id}/transfer`, { token: first.token, body: { namespace: target.id } })
    expect(moved.status).toBe(200)
    const afterMove = await projectRow(project.id)
    const [transfer, ...others] = await payloadsOf(projectChange('transfer', project.id, project.full_path))
    expect(others).toEqual([])
    expect(transfer.body).toEqual({
      ...projectBody(afterMove, 'project_transfer', [{ name: first.user.name, email: '[REDACTED]' }]),
      owner_name: first.user.name,
      owner_email: '[REDACTED]',
      old_path_with_namespace: project.full_path,
    })
  })

  test('a deleted project is told as it was; on Free a group hears nothing of it', async () => {
    const db = free.database.db
    const group = await createTestGroup(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    const res = await client(free.url)('POST', '/api/v4/projects', { token: owner.token, body: { name: 'Gone', namespace_id: group.id } })
    expect(res.status).toBe(201)
    expect((await client(free.url)('DELETE', `/api/v4/projects/${res.body.id}`, { token: owner.token })).status).toBe(202)
    const project = await db.selectFrom('projects').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
    const payloads = await payloadsOf(projectChange('destroy', project.id), free)
    expect(payloads).toEqual([
      {
        event: 'System Hook',
        trigger: 'system',
        scope: 'system',
        body: {
          ...projectBody(project, 'project_destroy', [{ name: owner.user.name, email: '[REDACTED]' }]),
          owner_name: group.name,
          owner_email: '',
        },
      },
    ])
  })
})

describe('group_create, group_rename and group_destroy', () => {
  test('a group is told with its full path; a new path carries the old ones; a subgroup is heard by the groups above', async () => {
    const db = server.database.db
    const parent = await createTestGroup(db, { path: `parent-${Date.now()}` })
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: parent, accessLevel: 50 })
    const res = await request('POST', '/api/v4/groups', {
      token: owner.token,
      body: { name: 'Old Name', path: 'old-name', parent_id: parent.id },
    })
    expect(res.status).toBe(201)
    const group = await namespaceRow(res.body.id)
    const change: Change = { kind: 'group', action: 'create', groupId: group.id, actorId: owner.user.id, at: new Date() }
    const data = { name: 'Old Name', path: 'old-name', full_path: `${parent.full_path}/old-name`, group_id: group.id }
    expect(await payloadsOf(change)).toEqual([
      {
        event: 'System Hook',
        trigger: 'system',
        scope: 'system',
        body: { created_at: seconds(group.created_at), updated_at: seconds(group.updated_at), event_name: 'group_create', ...data },
      },
      {
        event: 'Subgroup Hook',
        trigger: 'subgroup_events',
        scope: 'project',
        groupId: parent.id,
        body: {
          created_at: seconds(group.created_at),
          updated_at: seconds(group.updated_at),
          event_name: 'subgroup_create',
          ...data,
          parent_group_id: parent.id,
          parent_name: parent.name,
          parent_path: parent.path,
          parent_full_path: parent.full_path,
        },
      },
    ])

    server.travel(2000)
    const renamed = await request('PUT', `/api/v4/groups/${group.id}`, {
      token: owner.token,
      body: { name: 'Better Name', path: 'better-name' },
    })
    expect(renamed.status).toBe(200)
    const after = await namespaceRow(group.id)
    const rename: Change = { kind: 'group', action: 'rename', groupId: group.id, actorId: 1, oldFullPath: group.full_path, at: new Date() }
    expect(await payloadsOf(rename)).toEqual([
      {
        event: 'System Hook',
        trigger: 'system',
        scope: 'system',
        body: {
          created_at: seconds(after.created_at),
          updated_at: seconds(after.updated_at),
          event_name: 'group_rename',
          name: 'Better Name',
          path: 'better-name',
          full_path: `${parent.full_path}/better-name`,
          group_id: group.id,
          old_path: 'old-name',
          old_full_path: `${parent.full_path}/old-name`,
        },
      },
    ])
    const destroy = await payloadsOf({ kind: 'group', action: 'destroy', groupId: group.id, actorId: 1, at: new Date() })
    expect(destroy.map((payload) => [payload.event, payload.body.event_name])).toEqual([
      ['System Hook', 'group_destroy'],
      ['Subgroup Hook', 'subgroup_destroy'],
    ])
  })

  test('a top-level group on Free is heard by the system hooks only', async () => {
    const group = await createTestGroup(free.database.db)
    const payloads = await payloadsOf({ kind: 'group', action: 'create', groupId: group.id, actorId: 1, at: new Date() }, free)
    expect(payloads.map((payload) => payload.event)).toEqual(['System Hook'])
  })
})

describe('user_create, user_rename, user_destroy and user_failed_login', () => {
  function userBody(user: User, event: string) {
    return {
      created_at: seconds(user.created_at),
      updated_at: seconds(user.updated_at),
      event_name: event,
      name: user.name,
      email: user.email,
      user_id: user.id,
      username: user.username,
    }
  }

  function userRow(id: number): Promise<User> {
    return server.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  }

  test('a user is told with their own address, a new username with the old one', async () => {
    const res = await request('POST', '/api/v4/users', {
      token: server.rootToken,
      body: {
        name: 'John Smith',
        username: `js${Date.now()}`,
        email: `js${Date.now()}@example.com`,
        password: 'a-long-password-1',
        skip_confirmation: true,
      },
    })
    expect(res.status).toBe(201)
    const user = await userRow(res.body.id)
    const change: Change = { kind: 'user', action: 'create', userId: user.id, at: new Date() }
    expect(await payloadsOf(change)).toEqual([
      { event: 'System Hook', trigger: 'system', scope: 'system', body: userBody(user, 'user_create') },
    ])

    server.travel(2000)
    const renamed = await request('PUT', `/api/v4/users/${user.id}`, {
      token: server.rootToken,
      body: { username: `${user.username}-new` },
    })
    expect(renamed.status).toBe(200)
    const after = await userRow(user.id)
    const [rename] = await payloadsOf({ kind: 'user', action: 'rename', userId: user.id, oldUsername: user.username, at: new Date() })
    expect(rename.body).toEqual({ ...userBody(after, 'user_rename'), old_username: user.username })
    const [destroy] = await payloadsOf({ kind: 'user', action: 'destroy', userId: user.id, at: new Date() })
    expect(destroy.body).toEqual(userBody(after, 'user_destroy'))
  })

  test("a blocked user's failed sign-in carries the user's state", async () => {
    const user = await createTestUser(server.database.db)
    expect((await request('POST', `/api/v4/users/${user.id}/block`, { token: server.rootToken })).status).toBe(201)
    const res = await webClient(server.url).signIn(user.username, 'password123')
    expect(res.status).toBe(200)
    expect(flashOf(res.text)).toBe('Your account has been blocked. Please contact your svc administrator if you think this is an error.')
    const blocked = await userRow(user.id)
    const [payload] = await payloadsOf({ kind: 'user', action: 'failed_login', userId: user.id, at: new Date() })
    expect(payload.body).toEqual({ ...userBody(blocked, 'user_failed_login'), state: 'blocked' })
  })
})
