import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findPersonalNamespace } from './index.js'

let server: TestServer
let request: ReturnType<typeof client>
let uma: User
let umaSpace: NamespaceRow
let vic: User
let acme: NamespaceRow
let tools: NamespaceRow
let beta: NamespaceRow
let inner: NamespaceRow
let open: NamespaceRow
const tokens: Record<string, string> = {}

const BASIC_KEYS = ['id', 'name', 'path', 'kind', 'full_path', 'parent_id', 'avatar_url', 'web_url']
const ADMIN_GROUP_KEYS = [...BASIC_KEYS, 'members_count_with_descendants', 'root_repository_size', 'projects_count']
const gravatar = (email: string) => `https://www.gravatar.com/avatar/${createHash('md5').update(email).digest('hex')}?s=80&d=identicon`

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  uma = await createTestUser(db, { username: 'uma', name: 'Uma Umbra', email: 'uma@example.com' })
  umaSpace = (await findPersonalNamespace(db, uma.id))!
  vic = await createTestUser(db, { username: 'vic' })
  const wes = await createTestUser(db, { username: 'wes' })
  acme = await createTestGroup(db, { path: 'acme', name: 'Acme', visibility: 'public' })
  tools = await createTestGroup(db, { path: 'tools', name: 'Tools', parent: acme, visibility: 'private' })
  beta = await createTestGroup(db, { path: 'beta', name: 'Beta', visibility: 'private' })
  inner = await createTestGroup(db, { path: 'inner', name: 'Inner', parent: beta, visibility: 'private' })
  open = await createTestGroup(db, { path: 'open', visibility: 'public' })
  const gone = await createTestGroup(db, { path: 'gone', visibility: 'private' })
  await addTestMember(db, { user: uma, group: acme, accessLevel: 50 })
  await addTestMember(db, { user: uma, group: beta, accessLevel: 30 })
  await addTestMember(db, { user: uma, group: inner, accessLevel: 40 })
  await addTestMember(db, { user: uma, group: gone, accessLevel: 50, expiresAt: '2020-01-01' })
  await addTestMember(db, { user: wes, group: tools, accessLevel: 30 })
  await addTestMember(db, { user: uma, group: tools, accessLevel: 10 })
  await createTestProject(db, { namespace: acme, path: 'site' })
  await createTestProject(db, { namespace: tools, path: 'cli' })
  const project = await createTestProject(db, { namespace: open, path: 'shared' })
  await addTestMember(db, { user: uma, project, accessLevel: 50 })
  tokens.uma = (await createTestToken(db, uma)).value
  tokens.vic = (await createTestToken(db, vic)).value
  tokens.root = server.rootToken
})
afterAll(() => server.close())

function get(path: string, who?: string) {
  return request('GET', `/api/v4${path}`, { token: who ? tokens[who] : undefined })
}

const paths = (body: { full_path: string }[]) => body.map((n) => n.full_path)

describe('GET /namespaces', () => {
  test('a user lists their personal namespace and the groups they belong to directly, by id', async () => {
    const res = await get('/namespaces', 'uma')
    expect(res.status).toBe(200)
    expect(paths(res.body)).toEqual(['uma', 'acme', 'acme/tools', 'beta', 'beta/inner'])
    expect(res.body[0]).toEqual({
      id: umaSpace.id,
      name: 'Uma Umbra',
      path: 'uma',
      kind: 'user',
      full_path: 'uma',
      parent_id: null,
      avatar_url: gravatar('uma@example.com'),
      web_url: `${server.url}/uma`,
    })
    expect(Object.keys(res.body[0])).toEqual(BASIC_KEYS)
    // Owners see sizes: distinct members and projects of the group and every group below.
    expect(res.body[1]).toEqual({
      id: acme.id,
      name: 'Acme',
      path: 'acme',
      kind: 'group',
      full_path: 'acme',
      parent_id: null,
      avatar_url: null,
      web_url: `${server.url}/groups/acme`,
      members_count_with_descendants: 2,
      root_repository_size: null,
      projects_count: 2,
    })
    // Inherited ownership counts too; a Developer or Maintainer sees no sizes.
    expect(Object.keys(res.body[2])).toEqual(ADMIN_GROUP_KEYS)
    expect(res.body[2]).toMatchObject({ parent_id: acme.id, members_count_with_descendants: 2, projects_count: 1 })
    expect(Object.keys(res.body[3])).toEqual(BASIC_KEYS)
    expect(Object.keys(res.body[4])).toEqual(BASIC_KEYS)
  })

  test('owned_only, top_level_only, search and full_path_search', async () => {
    expect(paths((await get('/namespaces?owned_only=true', 'uma')).body)).toEqual(['uma', 'acme'])
    expect(paths((await get('/namespaces?top_level_only=true', 'uma')).body)).toEqual(['uma', 'acme', 'beta'])
    expect(paths((await get('/namespaces?search=acm', 'uma')).body)).toEqual(['acme'])
    expect(paths((await get('/namespaces?search=inner', 'uma')).body)).toEqual(['beta/inner'])
    expect(paths((await get('/namespaces?search=beta', 'uma')).body)).toEqual(['beta'])
    expect(paths((await get('/namespaces?search=beta&full_path_search=true', 'uma')).body)).toEqual(['beta', 'beta/inner'])
    expect(paths((await get('/namespaces?search=UMBRA', 'uma')).body)).toEqual(['uma'])
    expect(paths((await get('/namespaces', 'vic')).body)).toEqual(['vic'])
  })

  test('administrators list every namespace, with sizes of every group', async () => {
    const res = await get('/namespaces?per_page=100', 'root')
    expect(paths(res.body)).toEqual(['root', 'uma', 'vic', 'wes', 'acme', 'acme/tools', 'beta', 'beta/inner', 'open', 'gone'])
    expect(Object.keys(res.body.find((n: { full_path: string }) => n.full_path === 'open'))).toEqual(ADMIN_GROUP_KEYS)
    expect(paths((await get('/namespaces?owned_only=true&top_level_only=true&search=ope', 'root')).body)).toEqual(['open'])
  })

  test('offset pages with GitLab headers', async () => {
    const res = await get('/namespaces?per_page=2&page=2', 'uma')
    expect(paths(res.body)).toEqual(['acme/tools', 'beta'])
    expect(res.headers).toMatchObject({ 'x-total': '5', 'x-total-pages': '3', 'x-page': '2', 'x-next-page': '3', 'x-prev-page': '1' })
  })

  test('anonymous callers get 401', async () => {
    const res = await get('/namespaces')
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
  })
})

describe('GET /namespaces/:id', () => {
  test('by id or full path: own personal namespace, groups the caller belongs to (directly or from above)', async () => {
    expect((await get(`/namespaces/${umaSpace.id}`, 'uma')).body.full_path).toBe('uma')
    expect((await get('/namespaces/UMA', 'uma')).body.id).toBe(umaSpace.id)
    const sub = await get('/namespaces/acme%2Ftools', 'uma')
    expect(sub.status).toBe(200)
    expect(Object.keys(sub.body)).toEqual(ADMIN_GROUP_KEYS)
    expect(sub.body).toMatchObject({ id: tools.id, kind: 'group', full_path: 'acme/tools', parent_id: acme.id })
    const developer = await get(`/namespaces/${beta.id}`, 'uma')
    expect(Object.keys(developer.body)).toEqual(BASIC_KEYS)
    expect((await get(`/namespaces/${inner.id}`, 'uma')).status).toBe(200)
  })

  test("other users' namespaces and groups the caller only sees are 404 Namespace Not Found", async () => {
    const vicSpace = (await findPersonalNamespace(server.database.db, vic.id))!
    for (const id of [String(vicSpace.id), 'vic', String(open.id), 'open', '999999', 'no%2Fsuch']) {
      const res = await get(`/namespaces/${id}`, 'uma')
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 Namespace Not Found' })
    }
    expect((await get(`/namespaces/${vicSpace.id}`, 'root')).body.full_path).toBe('vic')
    expect(Object.keys((await get('/namespaces/open', 'root')).body)).toEqual(ADMIN_GROUP_KEYS)
    expect((await get('/namespaces/uma')).status).toBe(401)
  })
})

describe('GET /namespaces/:id/exists', () => {
  test('whether a path is used at the top level or under a parent, with a free one to suggest', async () => {
    expect((await get('/namespaces/acme/exists', 'vic')).body).toEqual({ exists: true, suggests: ['acme1'] })
    expect((await get('/namespaces/ACME/exists', 'vic')).body).toEqual({ exists: true, suggests: ['ACME1'] })
    expect((await get('/namespaces/uma/exists', 'vic')).body).toEqual({ exists: true, suggests: ['uma1'] })
    expect((await get('/namespaces/free/exists', 'vic')).body).toEqual({ exists: false, suggests: [] })
    expect((await get('/namespaces/tools/exists', 'vic')).body).toEqual({ exists: false, suggests: [] })
    expect((await get(`/namespaces/tools/exists?parent_id=${acme.id}`, 'vic')).body).toEqual({ exists: true, suggests: ['tools1'] })
    await createTestGroup(server.database.db, { path: 'acme1' })
    await createTestGroup(server.database.db, { path: 'other-path', name: 'acme2' })
    expect((await get('/namespaces/acme/exists', 'vic')).body).toEqual({ exists: true, suggests: ['acme3'] })
    expect((await get('/namespaces/acme/exists?parent_id=x', 'vic')).body).toEqual({ error: 'parent_id is invalid' })
    expect((await get('/namespaces/acme/exists')).status).toBe(401)
  })
})
