import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { gravatarOf } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
const u: Record<string, User> = {}
const tokens: Record<string, string> = {}
let project: ProjectRow
let secret: ProjectRow
let personal: ProjectRow

const ids = (body: { id: number }[]) => body.map((user) => user.id)

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  for (const [name, extra] of [
    ['ownerette', { name: 'Olivia Owner' }],
    ['devon', { name: 'Devon Developer' }],
    ['guesty', { name: 'Gus Guest' }],
    ['minimal', { name: 'Min Imal' }],
    ['expired', { name: 'Ex Pired' }],
    ['shy', { name: 'Shy Private', private_profile: 1 }],
    ['outsider', { name: 'Out Sider' }],
  ] as const) {
    u[name] = await createTestUser(db, { username: name, email: `${name}@example.com`, ...extra })
    tokens[name] = (await createTestToken(db, u[name])).value
  }
  const parent = await createTestGroup(db, { path: 'parent', visibility: 'public' })
  const group = await createTestGroup(db, { path: 'child', parent, visibility: 'public' })
  await addTestMember(db, { user: u.ownerette, group: parent, accessLevel: 50 })
  await addTestMember(db, { user: u.devon, group, accessLevel: 30 })
  await addTestMember(db, { user: u.minimal, group, accessLevel: 5 })
  await addTestMember(db, { user: u.expired, group, accessLevel: 30, expiresAt: '2001-01-01' })
  project = await createTestProject(db, { namespace: group, path: 'shared', visibility: 'public' })
  await addTestMember(db, { user: u.guesty, project, accessLevel: 10 })
  secret = await createTestProject(db, { namespace: group, path: 'secret', visibility: 'private' })
  personal = await createTestProject(db, { owner: u.shy, path: 'mine', visibility: 'public' })
})
afterAll(() => server.close())

describe('GET /projects/:id/users', () => {
  test('members directly and through every group above, by id; no minimal access, no expired memberships', async () => {
    const res = await request('GET', `/api/v4/projects/${project.id}/users`)
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([u.ownerette.id, u.devon.id, u.guesty.id])
    expect(res.body[0]).toEqual({
      id: u.ownerette.id,
      username: 'ownerette',
      name: 'Olivia Owner',
      state: 'active',
      locked: false,
      avatar_url: gravatarOf('ownerette@example.com'),
      web_url: `${server.url}/ownerette`,
    })
    expect(res.headers['x-total']).toBe('3')
    const own = await request('GET', `/api/v4/projects/${personal.id}/users`)
    expect(ids(own.body)).toEqual([u.shy.id])
  })

  test('search and skip_users', async () => {
    expect(ids((await request('GET', `/api/v4/projects/${project.id}/users?search=DEVELOPER`)).body)).toEqual([u.devon.id])
    expect(ids((await request('GET', `/api/v4/projects/${project.id}/users?search=gus`)).body)).toEqual([u.guesty.id])
    expect(ids((await request('GET', `/api/v4/projects/${project.id}/users?search=gu`)).body)).toEqual([])
    const skipped = await request('GET', `/api/v4/projects/${project.id}/users?skip_users=${u.ownerette.id},${u.guesty.id}`)
    expect(ids(skipped.body)).toEqual([u.devon.id])
    const array = await request('GET', `/api/v4/projects/${project.id}/users?skip_users[]=${u.devon.id}`)
    expect(ids(array.body)).toEqual([u.ownerette.id, u.guesty.id])
    const bad = await request('GET', `/api/v4/projects/${project.id}/users?skip_users=a,b`)
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'skip_users is invalid' })
  })

  test('pages, and private projects for their members only', async () => {
    const res = await request('GET', `/api/v4/projects/${project.id}/users?per_page=2&page=2`)
    expect(ids(res.body)).toEqual([u.guesty.id])
    expect(res.headers['x-prev-page']).toBe('1')
    expect((await request('GET', `/api/v4/projects/${secret.id}/users`)).status).toBe(404)
    expect((await request('GET', `/api/v4/projects/${secret.id}/users`, { token: tokens.outsider })).status).toBe(404)
    expect(ids((await request('GET', `/api/v4/projects/${secret.id}/users`, { token: tokens.devon })).body)).toEqual([
      u.ownerette.id,
      u.devon.id,
    ])
  })
})

describe('GET /projects/:id/starrers', () => {
  beforeAll(async () => {
    for (const name of ['devon', 'shy', 'outsider']) {
      const res = await request('POST', `/api/v4/projects/${project.id}/star`, { token: tokens[name] })
      expect(res.status).toBe(201)
    }
  })

  test('who starred, oldest first, with since when; private profiles only for administrators and themselves', async () => {
    const res = await request('GET', `/api/v4/projects/${project.id}/starrers`)
    expect(res.status).toBe(200)
    expect(res.body.map((s: { user: { id: number } }) => s.user.id)).toEqual([u.devon.id, u.outsider.id])
    expect(Object.keys(res.body[0])).toEqual(['starred_since', 'user'])
    expect(res.body[0].user).toMatchObject({ id: u.devon.id, username: 'devon' })
    const star = await server.database.db
      .selectFrom('project_stars')
      .select('created_at')
      .where('user_id', '=', u.devon.id)
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow()
    expect(res.body[0].starred_since).toBe(star.created_at)
    const self = await request('GET', `/api/v4/projects/${project.id}/starrers`, { token: tokens.shy })
    expect(self.body.map((s: { user: { id: number } }) => s.user.id)).toEqual([u.devon.id, u.shy.id, u.outsider.id])
    const admin = await request('GET', `/api/v4/projects/${project.id}/starrers`, { token: server.rootToken })
    expect(admin.body).toHaveLength(3)
    expect(admin.headers['x-total']).toBe('3')
  })

  test('search by name or username', async () => {
    const res = await request('GET', `/api/v4/projects/${project.id}/starrers?search=sider`, { token: server.rootToken })
    expect(res.body.map((s: { user: { username: string } }) => s.user.username)).toEqual(['outsider'])
    expect((await request('GET', `/api/v4/projects/${secret.id}/starrers`)).status).toBe(404)
  })
})
