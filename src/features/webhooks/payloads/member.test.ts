import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../../core/caller.js'
import type { Change } from '../../../core/changes.js'
import type { NamespaceRow, ProjectRow } from '../../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../../testing/factories.js'
import { contextFor } from '../../../testing/context.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { createCaller, memberRowOf } from '../../members/testing.js'
import { hookPayloadsOf } from './index.js'

let premium: TestServer
let free: TestServer

beforeAll(async () => {
  ;[premium, free] = await Promise.all([startTestServer({ SVC_TIER: 'premium' }), startTestServer({ SVC_TIER: 'free' })])
})
afterAll(() => Promise.all([premium.close(), free.close()]))

/** What the hooks hear of a change, read as the hooks' teller reads it: in a transaction. */
function payloadsOf(server: TestServer, change: Change) {
  return server.database.db.transaction().execute((trx) => hookPayloadsOf(contextFor(server, null), trx, change))
}

function memberChange(
  action: 'add' | 'update' | 'remove',
  source: { type: 'project' | 'group'; id: number },
  user: User,
  level: number,
  expiresAt: string | null = null,
): Change {
  return { kind: 'member', action, source, userId: user.id, actorId: 1, accessLevel: level, expiresAt, at: new Date() }
}

const seconds = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z')

/** A group with an Owner holding a token, and a project in it. */
async function team(server: TestServer) {
  const db = server.database.db
  const group = await createTestGroup(db)
  const project = await createTestProject(db, { namespace: group, visibility: 'internal' })
  const owner = await createCaller(db)
  await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
  return { group, project, owner }
}

function expectedProjectMember(
  project: ProjectRow,
  user: User,
  row: { created_at: string; updated_at: string },
  level: string,
  event: string,
) {
  return {
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
    project_name: project.name,
    project_path: project.path,
    project_path_with_namespace: project.full_path,
    project_id: project.id,
    user_username: user.username,
    user_name: user.name,
    user_email: user.public_email || '[REDACTED]',
    user_id: user.id,
    access_level: level,
    project_visibility: 'internal',
    event_name: event,
  }
}

function expectedGroupMember(
  group: NamespaceRow,
  user: User,
  row: { created_at: string; updated_at: string },
  level: string,
  expiresAt: string | null,
  event: string,
) {
  return {
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
    group_name: group.name,
    group_path: group.path,
    group_id: group.id,
    user_username: user.username,
    user_name: user.name,
    user_email: user.public_email || '[REDACTED]',
    user_id: user.id,
    group_access: level,
    group_plan: null,
    expires_at: expiresAt,
    event_name: event,
  }
}

describe('a project membership', () => {
  test('is heard by the system hooks only, as user_add_to_team, user_update_for_team and user_remove_from_team', async () => {
    const server = premium
    const request = client(server.url)
    const { project, owner } = await team(server)
    const user = await createTestUser(server.database.db, { public_email: null })
    const source = { type: 'project' as const, id: project.id }

    const added = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 30 },
    })
    expect(added.status).toBe(201)
    const row = (await memberRowOf(server.database.db, { userId: user.id, project }))!
    expect(await payloadsOf(server, memberChange('add', source, user, 30))).toEqual([
      {
        event: 'System Hook',
        trigger: 'system',
        scope: 'system',
        body: expectedProjectMember(project, user, row, 'Developer', 'user_add_to_team'),
      },
    ])

    server.travel(2000)
    const changed = await request('PUT', `/api/v4/projects/${project.id}/members/${user.id}`, {
      token: owner.token,
      body: { access_level: 40 },
    })
    expect(changed.status).toBe(200)
    const updated = (await memberRowOf(server.database.db, { userId: user.id, project }))!
    expect(updated.updated_at).not.toBe(row.updated_at)
    const [update] = await payloadsOf(server, memberChange('update', source, user, 40))
    expect(update.body).toEqual(expectedProjectMember(project, user, updated, 'Maintainer', 'user_update_for_team'))

    // A removal is told before its row goes: the membership's own times.
    const removal = memberChange('remove', source, user, 40)
    const [remove] = await payloadsOf(server, removal)
    expect(remove.body).toEqual(expectedProjectMember(project, user, updated, 'Maintainer', 'user_remove_from_team'))
    const gone = await request('DELETE', `/api/v4/projects/${project.id}/members/${user.id}`, { token: owner.token })
    expect(gone.status).toBe(204)
  })

  test('shows the public e-mail only', async () => {
    const { project, owner } = await team(premium)
    const user = await createTestUser(premium.database.db, { public_email: 'shown@example.com' })
    await addTestMember(premium.database.db, { user, project, accessLevel: 10 })
    const [payload] = await payloadsOf(premium, memberChange('update', { type: 'project', id: project.id }, user, 10))
    expect(payload.body).toMatchObject({ user_email: 'shown@example.com', access_level: 'Guest' })
    void owner
  })
})

describe('a group membership', () => {
  test('on Premium, is heard by the system hooks and as Member Hook by the group and the groups above it', async () => {
    const server = premium
    const request = client(server.url)
    const { group, owner } = await team(server)
    const user = await createTestUser(server.database.db)
    const res = await request('POST', `/api/v4/groups/${group.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 20, expires_at: '2999-01-31' },
    })
    expect(res.status).toBe(201)
    const row = (await memberRowOf(server.database.db, { userId: user.id, group }))!
    const body = expectedGroupMember(group, user, row, 'Reporter', '2999-01-31', 'user_add_to_group')
    expect(await payloadsOf(server, memberChange('add', { type: 'group', id: group.id }, user, 20, '2999-01-31'))).toEqual([
      { event: 'System Hook', trigger: 'system', scope: 'system', body },
      { event: 'Member Hook', trigger: 'member_events', scope: 'project', groupId: group.id, body },
    ])
    const [, update] = await payloadsOf(server, memberChange('update', { type: 'group', id: group.id }, user, 30))
    expect(update.body).toMatchObject({ group_access: 'Developer', expires_at: null, event_name: 'user_update_for_group' })
    const [, remove] = await payloadsOf(server, memberChange('remove', { type: 'group', id: group.id }, user, 30))
    expect(remove.body).toMatchObject({ event_name: 'user_remove_from_group' })
  })

  test('on Free, is heard by the system hooks only (group hooks are Premium)', async () => {
    const { group } = await team(free)
    const user = await createTestUser(free.database.db)
    const row = await addTestMember(free.database.db, { user, group, accessLevel: 40 })
    expect(await payloadsOf(free, memberChange('add', { type: 'group', id: group.id }, user, 40))).toEqual([
      {
        event: 'System Hook',
        trigger: 'system',
        scope: 'system',
        body: expectedGroupMember(group, user, row, 'Maintainer', null, 'user_add_to_group'),
      },
    ])
  })
})
