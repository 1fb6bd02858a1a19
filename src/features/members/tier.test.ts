import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { addTestMember, createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createCaller, createHierarchy, expectedMember, memberRowOf, membershipsOf } from './testing.js'

/** Minimal Access (5) exists on Premium and Ultimate, for memberships of top-level groups only (EE GroupMember). */

describe('on the free tier', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  test('Minimal Access is refused for want of a license, and below the top level for that too', async () => {
    const db = server.database.db
    const { top, middle } = await createHierarchy(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const user = await createTestUser(db)
    const request = client(server.url)
    const res = await request('POST', `/api/v4/groups/${top.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 5 },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: { access_level: ['is not included in the list', 'not supported by license'] } })
    const below = await request('POST', `/api/v4/groups/${middle.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 5 },
    })
    expect(below.body).toEqual({
      message: { access_level: ['is not included in the list', 'supported on top level groups only', 'not supported by license'] },
    })
    expect(await membershipsOf(db, user.id)).toEqual([])
  })

  test('Minimal Access rows left from a paid tier are not listed', async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const user = await createTestUser(db)
    await addTestMember(db, { user, group, accessLevel: 5 })
    const viewer = await createCaller(db)
    const res = await client(server.url)('GET', `/api/v4/groups/${group.id}/members`, { token: viewer.token })
    expect(res.body).toEqual([])
  })
})

describe('on Premium', () => {
  let server: TestServer
  let request: ReturnType<typeof client>
  beforeAll(async () => {
    server = await startTestServer({ SVC_TIER: 'premium' })
    request = client(server.url)
  })
  afterAll(() => server.close())

  test('a top-level group takes Minimal Access members and lists them; subgroups and projects do not', async () => {
    const db = server.database.db
    const { top, middle, project } = await createHierarchy(db)
    const owner = await createCaller(db)
    await addTestMember(db, { user: owner.user, group: top, accessLevel: 50 })
    const user = await createTestUser(db)
    const added = await request('POST', `/api/v4/groups/${top.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 5 },
    })
    expect(added.status).toBe(201)
    const row = (await memberRowOf(db, { userId: user.id, group: top }))!
    expect(added.body).toEqual(expectedMember(user, row, server.url, { createdBy: owner.user }))

    const listed = await request('GET', `/api/v4/groups/${top.id}/members`, { token: owner.token })
    expect(listed.body.map((m: { id: number }) => m.id)).toEqual([owner.user.id, user.id])
    expect((await request('GET', `/api/v4/groups/${top.id}/members/${user.id}`, { token: owner.token })).status).toBe(200)
    // Minimal Access is not inherited: the subgroup and the project do not list the user.
    const inherited = await request('GET', `/api/v4/groups/${middle.id}/members/all`, { token: owner.token })
    expect(inherited.body.map((m: { id: number }) => m.id)).toEqual([owner.user.id])
    const inProject = await request('GET', `/api/v4/projects/${project.id}/members/all`, { token: owner.token })
    expect(inProject.body.map((m: { id: number }) => m.id)).toEqual([owner.user.id])

    const below = await request('POST', `/api/v4/groups/${middle.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 5 },
    })
    expect(below.body).toEqual({ message: { access_level: ['is not included in the list', 'supported on top level groups only'] } })
    const inAProject = await request('POST', `/api/v4/projects/${project.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 5 },
    })
    expect(inAProject.body).toEqual({ message: { access_level: ['is not included in the list'] } })

    // Adding a Minimal Access member with a real role raises the existing membership.
    const raised = await request('POST', `/api/v4/groups/${top.id}/members`, {
      token: owner.token,
      body: { user_id: user.id, access_level: 30 },
    })
    expect(raised.status).toBe(201)
    expect(await memberRowOf(db, { userId: user.id, group: top })).toMatchObject({ id: row.id, access_level: 30 })
  })

  test('members take seats', async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const owner = await createCaller(db)
    const blocked = await createTestUser(db, { state: 'blocked' })
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    await addTestMember(db, { user: blocked, group, accessLevel: 30 })
    const res = await request('GET', `/api/v4/groups/${group.id}/members?show_seat_info=true`, { token: owner.token })
    expect(res.body.map((m: { is_using_seat: boolean }) => m.is_using_seat)).toEqual([true, false])
  })
})

describe('on Ultimate', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ SVC_TIER: 'ultimate' })
  })
  afterAll(() => server.close())

  test('guests take no seat', async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const project = await createTestProject(db, { namespace: group })
    const owner = await createCaller(db)
    const guest = await createTestUser(db)
    const guestElsewhere = await createTestUser(db)
    await addTestMember(db, { user: owner.user, group, accessLevel: 50 })
    await addTestMember(db, { user: guest, group, accessLevel: 10 })
    await addTestMember(db, { user: guestElsewhere, group, accessLevel: 10 })
    await addTestMember(db, { user: guestElsewhere, project: await createTestProject(db, { owner: owner.user }), accessLevel: 30 })
    const res = await client(server.url)('GET', `/api/v4/projects/${project.id}/members/all?show_seat_info=true`, { token: owner.token })
    expect(res.body.map((m: { id: number; is_using_seat: boolean }) => [m.id, m.is_using_seat])).toEqual([
      [owner.user.id, true],
      [guest.id, false],
      [guestElsewhere.id, true],
    ])
  })
})
