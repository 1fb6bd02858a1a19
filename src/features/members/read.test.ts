import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { MemberRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createCaller, createHierarchy, expectedMember, MEMBER_KEYS, memberRowOf } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let url: string

// Three nested groups and a project: alice owns the top group, bob develops in the middle one, carol maintains
// the bottom one, dave is a guest of the project and a reporter of the top group, erin belongs to nothing.
let top: NamespaceRow
let middle: NamespaceRow
let bottom: NamespaceRow
let project: ProjectRow
const users: Record<'alice' | 'bob' | 'carol' | 'dave' | 'erin', User> = {} as never
const tokens: Record<string, string> = {}
const rows: Record<string, MemberRow> = {}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  url = server.url
  const db = server.database.db
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin'] as const) {
    const caller = await createCaller(db, { username: name, name: name[0].toUpperCase() + name.slice(1), email: `${name}@example.com` })
    users[name] = caller.user
    tokens[name] = caller.token
  }
  ;({ top, middle, bottom, project } = await createHierarchy(db))
  rows.aliceTop = await addTestMember(db, { user: users.alice, group: top, accessLevel: 50 })
  rows.daveTop = await addTestMember(db, { user: users.dave, group: top, accessLevel: 20 })
  rows.bobMiddle = await addTestMember(db, { user: users.bob, group: middle, accessLevel: 30 })
  rows.carolBottom = await addTestMember(db, { user: users.carol, group: bottom, accessLevel: 40 })
  rows.daveProject = await addTestMember(db, { user: users.dave, project, accessLevel: 10 })
})
afterAll(() => server.close())

function get(path: string, token = tokens.erin) {
  return request('GET', `/api/v4${path}`, { token })
}

describe('GET /projects/:id/members and /groups/:id/members', () => {
  test('list the direct members only, in membership order, with pagination headers', async () => {
    const res = await get(`/projects/${project.id}/members`)
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toEqual([expectedMember(users.dave, rows.daveProject, url)])
    expect(Object.keys(res.body[0])).toEqual(MEMBER_KEYS)
    expect(res.headers).toMatchObject({ 'x-total': '1', 'x-total-pages': '1', 'x-page': '1', 'x-per-page': '20', 'x-next-page': '' })

    const group = await get(`/groups/${top.id}/members`)
    expect(group.status).toBe(200)
    expect(group.body).toEqual([expectedMember(users.alice, rows.aliceTop, url), expectedMember(users.dave, rows.daveTop, url)])
  })

  test('pages through members', async () => {
    const first = await get(`/groups/${top.id}/members?per_page=1`)
    expect(first.body.map((m: { username: string }) => m.username)).toEqual(['alice'])
    expect(first.headers).toMatchObject({ 'x-total': '2', 'x-total-pages': '2', 'x-next-page': '2' })
    expect(first.headers.link).toContain('rel="next"')
    const second = await get(`/groups/${top.id}/members?per_page=1&page=2`)
    expect(second.body.map((m: { username: string }) => m.username)).toEqual(['dave'])
  })

  test('filter by query, user ids and skipped users', async () => {
    const byQuery = await get(`/groups/${top.id}/members?query=ALI`)
    expect(byQuery.body.map((m: { username: string }) => m.username)).toEqual(['alice'])
    const byMention = await get(`/groups/${top.id}/members?query=@dav`)
    expect(byMention.body.map((m: { username: string }) => m.username)).toEqual(['dave'])
    const byIds = await get(`/groups/${top.id}/members?user_ids[]=${users.dave.id}&user_ids[]=${users.bob.id}`)
    expect(byIds.body.map((m: { username: string }) => m.username)).toEqual(['dave'])
    const byCommaIds = await get(`/groups/${top.id}/members?user_ids=${users.dave.id},${users.alice.id}`)
    expect(byCommaIds.body.map((m: { username: string }) => m.username)).toEqual(['alice', 'dave'])
    const skipping = await get(`/groups/${top.id}/members?skip_users=${users.alice.id}`)
    expect(skipping.body.map((m: { username: string }) => m.username)).toEqual(['dave'])
    const badIds = await get(`/groups/${top.id}/members?user_ids=a,b`)
    expect(badIds.status).toBe(400)
    expect(badIds.body).toEqual({ error: 'user_ids is invalid' })
  })

  test('expired memberships are not listed', async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const gone = await createTestUser(db)
    const kept = await createTestUser(db)
    await addTestMember(db, { user: gone, group, accessLevel: 30, expiresAt: '2020-01-01' })
    const row = await addTestMember(db, { user: kept, group, accessLevel: 30, expiresAt: '2999-01-01' })
    const res = await get(`/groups/${group.id}/members`)
    expect(res.body).toEqual([expectedMember(kept, row, url)])
    expect((await get(`/groups/${group.id}/members/${gone.id}`)).status).toBe(404)
  })

  test('administrators also see each e-mail; the creator is shown when one is recorded', async () => {
    const db = server.database.db
    const group = await createTestGroup(db)
    const owner = await addTestMember(db, { user: users.alice, group, accessLevel: 50 })
    const added = await request('POST', `/api/v4/groups/${group.id}/members`, {
      token: tokens.alice,
      body: { user_id: users.erin.id, access_level: 30 },
    })
    const row = (await memberRowOf(db, { userId: users.erin.id, group }))!
    expect(added.body).toEqual(expectedMember(users.erin, row, url, { createdBy: users.alice }))
    const res = await request('GET', `/api/v4/groups/${group.id}/members`, { token: server.rootToken })
    expect(res.body).toEqual([
      expectedMember(users.alice, owner, url, { email: true }),
      expectedMember(users.erin, row, url, { createdBy: users.alice, email: true }),
    ])
    expect(Object.keys(res.body[1])).toEqual([
      ...MEMBER_KEYS.slice(0, MEMBER_KEYS.indexOf('created_at') + 1),
      'created_by',
      'expires_at',
      'email',
      'membership_state',
    ])
  })

  test('show_seat_info adds is_using_seat: no seats are billed on the free tier', async () => {
    const res = await get(`/groups/${top.id}/members?show_seat_info=true`)
    expect(res.body.map((m: { is_using_seat: boolean }) => m.is_using_seat)).toEqual([false, false])
  })
})

describe('GET .../members/all', () => {
  test('a project lists its own members and those of every group above it, one row per user at their highest level', async () => {
    const res = await get(`/projects/${project.id}/members/all`)
    expect(res.status).toBe(200)
    // dave's own project row stands for him, with his highest level (Reporter, from the top group).
    expect(res.body).toEqual([
      expectedMember(users.alice, rows.aliceTop, url),
      expectedMember(users.bob, rows.bobMiddle, url),
      expectedMember(users.carol, rows.carolBottom, url),
      expectedMember(users.dave, rows.daveProject, url, { accessLevel: 20 }),
    ])
    expect(res.headers['x-total']).toBe('4')
  })

  test('a group lists its own members and those of its ancestors, not those below it', async () => {
    expect((await get(`/groups/${bottom.id}/members/all`)).body).toEqual([
      expectedMember(users.alice, rows.aliceTop, url),
      expectedMember(users.dave, rows.daveTop, url),
      expectedMember(users.bob, rows.bobMiddle, url),
      expectedMember(users.carol, rows.carolBottom, url),
    ])
    expect((await get(`/groups/${middle.id}/members/all`)).body.map((m: { username: string }) => m.username)).toEqual([
      'alice',
      'dave',
      'bob',
    ])
    expect((await get(`/groups/${top.id}/members/all`)).body.map((m: { username: string }) => m.username)).toEqual(['alice', 'dave'])
  })

  test("the highest membership wins; on a tie the group's own row, then the oldest", async () => {
    const db = server.database.db
    const h = await createHierarchy(db)
    const frank = await createTestUser(db)
    const grace = await createTestUser(db)
    const heidi = await createTestUser(db)
    const frankTop = await addTestMember(db, { user: frank, group: h.top, accessLevel: 40 })
    await addTestMember(db, { user: frank, group: h.bottom, accessLevel: 30 })
    const graceTop = await addTestMember(db, { user: grace, group: h.top, accessLevel: 30 })
    await addTestMember(db, { user: grace, group: h.middle, accessLevel: 30 })
    await addTestMember(db, { user: heidi, group: h.top, accessLevel: 30 })
    const heidiBottom = await addTestMember(db, { user: heidi, group: h.bottom, accessLevel: 30 })
    const res = await get(`/groups/${h.bottom.id}/members/all`)
    expect(res.body).toEqual([
      expectedMember(frank, frankTop, url),
      expectedMember(grace, graceTop, url),
      expectedMember(heidi, heidiBottom, url),
    ])
    const single = await get(`/groups/${h.bottom.id}/members/all/${frank.id}`)
    expect(single.body).toEqual(expectedMember(frank, frankTop, url))
  })

  test('filters apply to the merged list; awaiting members are none', async () => {
    expect((await get(`/projects/${project.id}/members/all?query=car`)).body.map((m: { username: string }) => m.username)).toEqual([
      'carol',
    ])
    const ids = await get(`/projects/${project.id}/members/all?user_ids=${users.bob.id},${users.dave.id}`)
    expect(ids.body.map((m: { username: string }) => m.username)).toEqual(['bob', 'dave'])
    expect((await get(`/projects/${project.id}/members/all?state=active`)).body).toHaveLength(4)
    expect((await get(`/projects/${project.id}/members/all?state=awaiting`)).body).toEqual([])
    const bad = await get(`/projects/${project.id}/members/all?state=pending`)
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'state does not have a valid value' })
  })

  test('a project in a personal namespace lists its holder as Owner', async () => {
    const db = server.database.db
    const holder = await createTestUser(db)
    const personal = await createTestProject(db, { owner: holder })
    const res = await get(`/projects/${personal.id}/members/all`)
    expect(res.body).toHaveLength(1)
    expect(res.body[0]).toMatchObject({ id: holder.id, access_level: 50 })
  })
})

describe('GET .../members/:user_id and .../members/all/:user_id', () => {
  test('a direct member', async () => {
    const res = await get(`/groups/${middle.id}/members/${users.bob.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual(expectedMember(users.bob, rows.bobMiddle, url))
    const byPath = await get(`/projects/${encodeURIComponent(project.full_path)}/members/${users.dave.id}`)
    expect(byPath.body).toEqual(expectedMember(users.dave, rows.daveProject, url))
  })

  test('an inherited member is found among all members only', async () => {
    const direct = await get(`/projects/${project.id}/members/${users.alice.id}`)
    expect(direct.status).toBe(404)
    expect(direct.body).toEqual({ message: '404 Not found' })
    const all = await get(`/projects/${project.id}/members/all/${users.alice.id}`)
    expect(all.status).toBe(200)
    expect(all.body).toEqual(expectedMember(users.alice, rows.aliceTop, url))
    const dave = await get(`/projects/${project.id}/members/all/${users.dave.id}`)
    expect(dave.body).toEqual(expectedMember(users.dave, rows.daveProject, url, { accessLevel: 20 }))
    const nobody = await get(`/projects/${project.id}/members/all/${users.erin.id}`)
    expect(nobody.status).toBe(404)
    expect(nobody.body).toEqual({ message: '404 Not found' })
  })

  test('a user id must be an integer', async () => {
    const res = await get(`/groups/${top.id}/members/alice`)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'user_id is invalid' })
    expect((await get(`/groups/${top.id}/members/99999999999`)).status).toBe(404)
  })
})

describe('who may read members', () => {
  let hidden: { group: NamespaceRow; project: ProjectRow; inner: NamespaceRow; innerProject: ProjectRow }
  let insider: { user: User; token: string }
  let projectOnly: { user: User; token: string }

  beforeAll(async () => {
    const db = server.database.db
    const group = await createTestGroup(db, { visibility: 'private' })
    const project = await createTestProject(db, { namespace: group, visibility: 'private' })
    const inner = await createTestGroup(db, { parent: group, visibility: 'private' })
    const innerProject = await createTestProject(db, { namespace: inner, visibility: 'private' })
    hidden = { group, project, inner, innerProject }
    insider = await createCaller(db)
    projectOnly = await createCaller(db)
    await addTestMember(db, { user: insider.user, group, accessLevel: 10 })
    await addTestMember(db, { user: projectOnly.user, project: innerProject, accessLevel: 30 })
  })

  test('anonymous callers get 401, even for public projects', async () => {
    for (const path of [
      `/projects/${project.id}/members`,
      `/groups/${top.id}/members/all`,
      `/groups/${top.id}/members/${users.alice.id}`,
    ]) {
      const res = await request('GET', `/api/v4${path}`)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ message: '401 Unauthorized' })
    }
  })

  test('anyone signed in reads the members of what they can see', async () => {
    expect((await get(`/projects/${project.id}/members/all`, tokens.erin)).status).toBe(200)
    const readOnly = await createTestToken(server.database.db, users.erin, { scopes: ['read_api'] })
    expect((await get(`/groups/${top.id}/members`, readOnly.value)).status).toBe(200)
  })

  test('what the caller cannot see is not found', async () => {
    const project = await get(`/projects/${hidden.project.id}/members`)
    expect(project.status).toBe(404)
    expect(project.body).toEqual({ message: '404 Project Not Found' })
    const group = await get(`/groups/${hidden.group.id}/members/all`)
    expect(group.status).toBe(404)
    expect(group.body).toEqual({ message: '404 Group Not Found' })
    expect((await get(`/groups/${encodeURIComponent(hidden.inner.full_path)}/members`)).status).toBe(404)
  })

  test('members of a private group read its members; a member of a project below it sees the group but not its members', async () => {
    expect((await get(`/groups/${hidden.inner.id}/members/all`, insider.token)).status).toBe(200)
    expect((await get(`/projects/${hidden.project.id}/members`, insider.token)).status).toBe(200)
    const refused = await get(`/groups/${hidden.group.id}/members`, projectOnly.token)
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: '403 Forbidden' })
    expect((await get(`/projects/${hidden.innerProject.id}/members/all`, projectOnly.token)).status).toBe(200)
  })

  test('administrators read every member list', async () => {
    const res = await request('GET', `/api/v4/groups/${hidden.group.id}/members`, { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(res.body.map((m: { id: number }) => m.id)).toEqual([insider.user.id])
  })
})
