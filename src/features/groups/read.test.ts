import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { GROUP_DETAIL_KEYS, GROUP_KEYS } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let open: NamespaceRow
let middle: NamespaceRow
let leaf: NamespaceRow
let secret: NamespaceRow
let secretChild: NamespaceRow
let inside: NamespaceRow
const tokens: Record<string, string> = {}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  open = await createTestGroup(db, { path: 'open', name: 'Open', visibility: 'public' })
  middle = await createTestGroup(db, { path: 'middle', name: 'Middle', parent: open, visibility: 'public' })
  leaf = await createTestGroup(db, { path: 'leaf', name: 'Leaf', parent: middle, visibility: 'public' })
  secret = await createTestGroup(db, { path: 'secret', visibility: 'private' })
  secretChild = await createTestGroup(db, { path: 'child', parent: secret, visibility: 'private' })
  inside = await createTestGroup(db, { path: 'inside', visibility: 'internal' })
  await createTestProject(db, { namespace: open, path: 'tool', visibility: 'public' })
  await createTestProject(db, { namespace: open, path: 'internal-tool', visibility: 'private' })
  await createTestProject(db, { namespace: middle, path: 'lower-tool', visibility: 'public' })
  const owner = await createTestUser(db)
  const childMember = await createTestUser(db)
  const outsider = await createTestUser(db)
  const external = await createTestUser(db, { external: 1 })
  await addTestMember(db, { user: owner, group: open, accessLevel: 50 })
  await addTestMember(db, { user: childMember, group: secretChild, accessLevel: 10 })
  for (const [name, user] of Object.entries({ owner, childMember, outsider, external }))
    tokens[name] = (await createTestToken(db, user)).value
  tokens.root = server.rootToken
})
afterAll(() => server.close())

function get(path: string, who?: string) {
  return request('GET', `/api/v4${path}`, { token: who ? tokens[who] : undefined })
}

const WITH_PROJECTS = [...GROUP_DETAIL_KEYS, 'projects', 'shared_projects']

describe('GET /groups/:id', () => {
  test('a public group for anonymous callers: GroupDetail with its projects, no runners token', async () => {
    const res = await get(`/groups/${open.id}`)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(WITH_PROJECTS)
    expect(res.body).toMatchObject({
      id: open.id,
      name: 'Open',
      path: 'open',
      full_path: 'open',
      web_url: `${server.url}/groups/open`,
      parent_id: null,
      shared_with_groups: [],
      prevent_sharing_groups_outside_hierarchy: false,
      shared_projects: [],
    })
    expect(Array.isArray(res.body.projects)).toBe(true)
  })

  test('Owners see the runners token field (null: registration tokens are disabled)', async () => {
    const res = await get(`/groups/${open.id}`, 'owner')
    expect(Object.keys(res.body)).toEqual([
      ...GROUP_KEYS,
      'shared_with_groups',
      'runners_token',
      'prevent_sharing_groups_outside_hierarchy',
      'projects',
      'shared_projects',
    ])
    expect(res.body.runners_token).toBeNull()
    // Ownership is inherited by the groups below.
    expect((await get(`/groups/${leaf.id}`, 'owner')).body.runners_token).toBeNull()
  })

  test('a group three levels deep by its URL-encoded full path, in any letter case', async () => {
    for (const path of ['open%2Fmiddle%2Fleaf', 'OPEN%2Fmiddle%2FLeaf']) {
      const res = await get(`/groups/${path}`)
      expect(res.status).toBe(200)
      expect(Object.keys(res.body)).toEqual([...GROUP_KEYS, 'shared_with_groups', 'projects', 'shared_projects'])
      expect(res.body).toMatchObject({
        id: leaf.id,
        full_path: 'open/middle/leaf',
        full_name: 'Open / Middle / Leaf',
        parent_id: middle.id,
      })
    }
  })

  test("projects: the group's own projects the caller may see, as Project entities", async () => {
    const anonymous = await get(`/groups/${open.id}`)
    expect(anonymous.body.projects.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual(['open/tool'])
    const owner = await get(`/groups/${open.id}`, 'owner')
    expect(owner.body.projects.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual([
      'open/internal-tool',
      'open/tool',
    ])
    expect(owner.body.projects[0]).toMatchObject({ namespace: { id: open.id, full_path: 'open' } })
    expect((await get('/groups/open%2Fmiddle')).body.projects.map((p: { path: string }) => p.path)).toEqual(['lower-tool'])
  })

  test('with_projects=false leaves the project lists out', async () => {
    const res = await get(`/groups/${open.id}?with_projects=false`)
    expect(Object.keys(res.body)).toEqual(GROUP_DETAIL_KEYS)
    expect((await get(`/groups/${open.id}?with_projects=maybe`)).body).toEqual({ error: 'with_projects is invalid' })
  })

  test('custom attributes for administrators only', async () => {
    const admin = await get(`/groups/${open.id}?with_custom_attributes=true&with_projects=false`, 'root')
    expect(Object.keys(admin.body)).toEqual([
      ...GROUP_KEYS.slice(0, -1),
      'custom_attributes',
      'marked_for_deletion_on',
      'shared_with_groups',
      'runners_token',
      'prevent_sharing_groups_outside_hierarchy',
    ])
    expect(admin.body.custom_attributes).toEqual([])
    const owner = await get(`/groups/${open.id}?with_custom_attributes=true&with_projects=false`, 'owner')
    expect(Object.keys(owner.body)).not.toContain('custom_attributes')
  })

  test('private groups are 404 unless the caller belongs to them or to something inside', async () => {
    for (const who of [undefined, 'outsider', 'external']) {
      const res = await get(`/groups/${secret.id}`, who)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 Group Not Found' })
    }
    expect((await get(`/groups/${secret.id}`, 'childMember')).status).toBe(200)
    expect((await get('/groups/secret%2Fchild', 'childMember')).status).toBe(200)
    expect((await get(`/groups/${secret.id}`, 'root')).status).toBe(200)
  })

  test('internal groups are for signed-in users who are not external', async () => {
    expect((await get(`/groups/${inside.id}`)).status).toBe(404)
    expect((await get(`/groups/${inside.id}`, 'external')).status).toBe(404)
    expect((await get(`/groups/${inside.id}`, 'outsider')).status).toBe(200)
  })

  test('unknown ids and paths, and user namespaces, are 404 Group Not Found', async () => {
    for (const id of ['999999', 'nothing', 'open%2Fnothing', '99999999999999999999']) {
      const res = await get(`/groups/${id}`)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 Group Not Found' })
    }
    expect((await get('/groups/root', 'root')).status).toBe(404)
  })
})
