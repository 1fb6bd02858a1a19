import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AccessLevel } from '../../core/access.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { EventAction } from '../../core/event-actions.js'
import { findEventRows } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

const shape = (rows: { author_id: number; action: number; target_type: string | null; target_id: number | null }[]) =>
  rows.map((row) => ({ author_id: row.author_id, action: row.action, target_type: row.target_type, target_id: row.target_id }))

describe('events recorded with the action', () => {
  test('creating a project records "created" by its creator, without a target', async () => {
    const user = await createTestUser(server.database.db)
    const token = await createTestToken(server.database.db, user)
    const created = await request('POST', '/api/v4/projects', { token: token.value, body: { name: 'Evented' } })
    expect(created.status).toBe(201)
    expect(shape(await findEventRows(server.database.db, created.body.id))).toEqual([
      { author_id: user.id, action: EventAction.created, target_type: null, target_id: null },
    ])

    const listed = await request('GET', `/api/v4/projects/${created.body.id}/events`, { token: token.value })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual([
      {
        id: expect.any(Number),
        title: null,
        project_id: created.body.id,
        action_name: 'created',
        target_id: null,
        target_iid: null,
        target_type: null,
        author_id: user.id,
        target_title: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        author: {
          id: user.id,
          username: user.username,
          name: user.name,
          state: 'active',
          locked: false,
          avatar_url: expect.stringContaining('https://www.gravatar.com/avatar/'),
          web_url: `${server.url}/${user.username}`,
        },
        imported: false,
        imported_from: 'none',
        author_username: user.username,
      },
    ])
    expect(Object.keys(listed.body[0])).toEqual([
      'id',
      'title',
      'project_id',
      'action_name',
      'target_id',
      'target_iid',
      'target_type',
      'author_id',
      'target_title',
      'created_at',
      'author',
      'imported',
      'imported_from',
      'author_username',
    ])
  })

  test('an administrator creating a project for a user records the event as that user', async () => {
    const user = await createTestUser(server.database.db)
    const created = await request('POST', `/api/v4/projects/user/${user.id}`, { token: server.rootToken, body: { name: 'For someone' } })
    expect(created.status).toBe(201)
    expect(shape(await findEventRows(server.database.db, created.body.id))).toEqual([
      { author_id: user.id, action: EventAction.created, target_type: null, target_id: null },
    ])
  })

  test('a refused project creation records nothing', async () => {
    const user = await createTestUser(server.database.db)
    const token = await createTestToken(server.database.db, user)
    const before = await server.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const refused = await request('POST', '/api/v4/projects', { token: token.value, body: { name: 'x', visibility: 'nonsense' } })
    expect(refused.status).toBe(400)
    const after = await server.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })

  test('project members joining and leaving record "joined" and "left" by the member', async () => {
    const owner = await createTestUser(server.database.db)
    const member = await createTestUser(server.database.db)
    const others = [await createTestUser(server.database.db), await createTestUser(server.database.db)]
    const project = await createTestProject(server.database.db, { owner })
    const token = await createTestToken(server.database.db, owner)

    const added = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: token.value,
      body: { user_id: member.id, access_level: AccessLevel.DEVELOPER },
    })
    expect(added.status).toBe(201)
    // Changing a role is no join.
    const changed = await request('PUT', `/api/v4/projects/${project.id}/members/${member.id}`, {
      token: token.value,
      body: { access_level: AccessLevel.MAINTAINER },
    })
    expect(changed.status).toBe(200)
    const bulk = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: token.value,
      body: { user_id: others.map((u) => u.id).join(','), access_level: AccessLevel.GUEST },
    })
    expect(bulk.body).toEqual({ status: 'success' })
    const removed = await request('DELETE', `/api/v4/projects/${project.id}/members/${member.id}`, { token: token.value })
    expect(removed.status).toBe(204)

    expect(shape(await findEventRows(server.database.db, project.id))).toEqual([
      { author_id: member.id, action: EventAction.joined, target_type: null, target_id: null },
      { author_id: others[0].id, action: EventAction.joined, target_type: null, target_id: null },
      { author_id: others[1].id, action: EventAction.joined, target_type: null, target_id: null },
      { author_id: member.id, action: EventAction.left, target_type: null, target_id: null },
    ])
    const listed = await request('GET', `/api/v4/projects/${project.id}/events?sort=asc`, { token: token.value })
    expect(listed.body.map((e: { action_name: string; author_id: number }) => [e.action_name, e.author_id])).toEqual([
      ['joined', member.id],
      ['joined', others[0].id],
      ['joined', others[1].id],
      ['left', member.id],
    ])
  })

  test('a refused membership records nothing', async () => {
    const owner = await createTestUser(server.database.db)
    const guest = await createTestUser(server.database.db)
    const project = await createTestProject(server.database.db, { owner })
    await addTestMember(server.database.db, { user: guest, project, accessLevel: AccessLevel.GUEST })
    const token = await createTestToken(server.database.db, guest)
    const refused = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: token.value,
      body: { user_id: owner.id, access_level: AccessLevel.GUEST },
    })
    expect(refused.status).toBe(409)
    const stranger = await createTestUser(server.database.db)
    const forbidden = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: token.value,
      body: { user_id: stranger.id, access_level: AccessLevel.GUEST },
    })
    expect(forbidden.status).toBe(403)
    expect(await findEventRows(server.database.db, project.id)).toEqual([])
  })

  test('group memberships record no event; leaving a group records "left" for its projects the user belonged to', async () => {
    const group = await createTestGroup(server.database.db)
    const subgroup = await createTestGroup(server.database.db, { parent: group })
    const inGroup = await createTestProject(server.database.db, { namespace: group })
    const inSubgroup = await createTestProject(server.database.db, { namespace: subgroup })
    const untouched = await createTestProject(server.database.db, { namespace: group })
    const user = await createTestUser(server.database.db)

    const added = await request('POST', `/api/v4/groups/${group.id}/members`, {
      token: server.rootToken,
      body: { user_id: user.id, access_level: AccessLevel.DEVELOPER },
    })
    expect(added.status).toBe(201)
    for (const project of [inGroup, inSubgroup]) {
      const joined = await request('POST', `/api/v4/projects/${project.id}/members`, {
        token: server.rootToken,
        body: { user_id: user.id, access_level: AccessLevel.MAINTAINER },
      })
      expect(joined.status).toBe(201)
    }
    const removed = await request('DELETE', `/api/v4/groups/${group.id}/members/${user.id}`, { token: server.rootToken })
    expect(removed.status).toBe(204)

    for (const project of [inGroup, inSubgroup]) {
      expect(shape(await findEventRows(server.database.db, project.id))).toEqual([
        { author_id: user.id, action: EventAction.joined, target_type: null, target_id: null },
        { author_id: user.id, action: EventAction.left, target_type: null, target_id: null },
      ])
    }
    expect(await findEventRows(server.database.db, untouched.id)).toEqual([])
    const memberships = await server.database.db.selectFrom('members').select('id').where('user_id', '=', user.id).execute()
    expect(memberships).toEqual([])
  })
})
