import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { NamespaceRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { GROUP_KEYS, STATISTICS_KEYS } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let alpha: NamespaceRow
let apple: NamespaceRow
let core: NamespaceRow
let avocado: NamespaceRow
let bravo: NamespaceRow
let charlie: NamespaceRow
let cherry: NamespaceRow
let delta: NamespaceRow
const tokens: Record<string, string> = {}

const names = (body: { name: string }[]) => body.map((g) => g.name)

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  alpha = await createTestGroup(db, { path: 'alpha', visibility: 'public' })
  apple = await createTestGroup(db, { path: 'apple', parent: alpha, visibility: 'private' })
  core = await createTestGroup(db, { path: 'core', parent: apple, visibility: 'private' })
  avocado = await createTestGroup(db, { path: 'avocado', parent: alpha, visibility: 'public' })
  bravo = await createTestGroup(db, { path: 'bravo', visibility: 'internal' })
  charlie = await createTestGroup(db, { path: 'charlie', visibility: 'private' })
  cherry = await createTestGroup(db, { path: 'cherry', parent: charlie, visibility: 'private' })
  delta = await createTestGroup(db, { path: 'delta', visibility: 'public' })
  const alice = await createTestUser(db)
  const dora = await createTestUser(db)
  const fay = await createTestUser(db)
  const eve = await createTestUser(db)
  const bob = await createTestUser(db, { external: 1 })
  await addTestMember(db, { user: alice, group: alpha, accessLevel: 10 })
  await addTestMember(db, { user: dora, group: charlie, accessLevel: 50 })
  await addTestMember(db, { user: dora, group: delta, accessLevel: 30 })
  await addTestMember(db, { user: dora, group: bravo, accessLevel: 50, expiresAt: '2020-01-01' })
  const project = await createTestProject(db, { namespace: cherry, visibility: 'private' })
  await addTestMember(db, { user: fay, project, accessLevel: 30 })
  for (const [name, user] of Object.entries({ alice, dora, fay, eve, bob })) tokens[name] = (await createTestToken(db, user)).value
  tokens.root = server.rootToken
})
afterAll(() => server.close())

function get(path: string, who?: string) {
  return request('GET', `/api/v4${path}`, { token: who ? tokens[who] : undefined })
}

describe('GET /groups: who sees which groups (GroupsFinder)', () => {
  test('anonymous callers see public groups, by name', async () => {
    const res = await get('/groups')
    expect(res.status).toBe(200)
    expect(names(res.body)).toEqual(['alpha', 'avocado', 'delta'])
    for (const group of res.body) expect(Object.keys(group)).toEqual(GROUP_KEYS)
    expect(res.body[0]).toMatchObject({ id: alpha.id, full_path: 'alpha', web_url: `${server.url}/groups/alpha`, visibility: 'public' })
  })

  test('signed-in users see the groups they belong to, with those below and above, unless all_available', async () => {
    expect(names((await get('/groups', 'eve')).body)).toEqual([])
    expect(names((await get('/groups', 'alice')).body)).toEqual(['alpha', 'apple', 'avocado', 'core'])
    // Expired memberships count for nothing.
    expect(names((await get('/groups', 'dora')).body)).toEqual(['charlie', 'cherry', 'delta'])
    // A project member sees the groups above the project.
    expect(names((await get('/groups', 'fay')).body)).toEqual(['charlie', 'cherry'])
    expect(names((await get('/groups?all_available=true', 'eve')).body)).toEqual(['alpha', 'avocado', 'bravo', 'delta'])
    expect(names((await get('/groups?all_available=true', 'alice')).body)).toEqual(['alpha', 'apple', 'avocado', 'bravo', 'core', 'delta'])
  })

  test('external users see public groups only, even with all_available', async () => {
    expect(names((await get('/groups?all_available=true', 'bob')).body)).toEqual(['alpha', 'avocado', 'delta'])
  })

  test('administrators see every group unless all_available=false', async () => {
    expect(names((await get('/groups', 'root')).body)).toEqual(['alpha', 'apple', 'avocado', 'bravo', 'charlie', 'cherry', 'core', 'delta'])
    expect(names((await get('/groups?all_available=false', 'root')).body)).toEqual([])
  })

  test('owned: direct Owner memberships only; anonymous callers own nothing', async () => {
    expect(names((await get('/groups?owned=true', 'dora')).body)).toEqual(['charlie'])
    expect(names((await get('/groups?owned=true', 'alice')).body)).toEqual([])
    expect(names((await get('/groups?owned=true')).body)).toEqual([])
  })

  test('min_access_level: memberships at that role or above, with the groups below them', async () => {
    expect(names((await get('/groups?min_access_level=50', 'dora')).body)).toEqual(['charlie', 'cherry'])
    expect(names((await get('/groups?min_access_level=30', 'dora')).body)).toEqual(['charlie', 'cherry', 'delta'])
    expect(names((await get('/groups?min_access_level=20', 'alice')).body)).toEqual([])
    // Anonymous callers have no role: the filter is ignored.
    expect(names((await get('/groups?min_access_level=50')).body)).toEqual(['alpha', 'avocado', 'delta'])
    const bad = await get('/groups?min_access_level=7', 'dora')
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'min_access_level does not have a valid value' })
  })
})

describe('GET /groups: filters and order', () => {
  test('top_level_only, skip_groups (array or comma list), visibility', async () => {
    expect(names((await get('/groups?top_level_only=true', 'root')).body)).toEqual(['alpha', 'bravo', 'charlie', 'delta'])
    expect(names((await get(`/groups?skip_groups[]=${alpha.id}&skip_groups[]=${delta.id}`, 'root')).body)).toEqual([
      'apple',
      'avocado',
      'bravo',
      'charlie',
      'cherry',
      'core',
    ])
    expect(names((await get(`/groups?skip_groups=${apple.id},${core.id}&top_level_only=true`, 'root')).body)).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'delta',
    ])
    expect(names((await get('/groups?visibility=private', 'root')).body)).toEqual(['apple', 'charlie', 'cherry', 'core'])
    expect((await get('/groups?visibility=secret', 'root')).body).toEqual({ error: 'visibility does not have a valid value' })
    expect((await get('/groups?skip_groups=a', 'root')).body).toEqual({ error: 'skip_groups is invalid' })
  })

  test('search matches full paths and names; short queries must match whole; every word must match', async () => {
    expect(names((await get('/groups?search=alp', 'root')).body)).toEqual(['alpha', 'apple', 'avocado', 'core'])
    expect(names((await get('/groups?search=CORE', 'root')).body)).toEqual(['core'])
    expect(names((await get('/groups?search=ap', 'root')).body)).toEqual([])
    expect(names((await get('/groups?search=alpha%20apple', 'root')).body)).toEqual(['apple', 'core'])
    expect(names((await get('/groups?search=%20%20', 'root')).body)).toHaveLength(8)
    expect(names((await get('/groups?search=alp')).body)).toEqual(['alpha', 'avocado'])
  })

  test('order_by path, id and name in either direction', async () => {
    expect(names((await get('/groups?order_by=path&sort=desc', 'root')).body)).toEqual([
      'delta',
      'core',
      'cherry',
      'charlie',
      'bravo',
      'avocado',
      'apple',
      'alpha',
    ])
    const byId = [alpha, apple, core, avocado, bravo, charlie, cherry, delta].map((g) => g.id)
    expect((await get('/groups?order_by=id', 'root')).body.map((g: { id: number }) => g.id)).toEqual(byId)
    expect((await get('/groups?order_by=id&sort=desc', 'root')).body.map((g: { id: number }) => g.id)).toEqual([...byId].reverse())
    expect(names((await get('/groups?sort=desc&top_level_only=true', 'root')).body)).toEqual(['delta', 'charlie', 'bravo', 'alpha'])
    expect((await get('/groups?order_by=created_at', 'root')).body).toEqual({ error: 'order_by does not have a valid value' })
  })

  test('order_by=similarity ranks by closeness of path and name to the search, and by name without one', async () => {
    expect(names((await get('/groups?order_by=similarity&search=apple', 'root')).body)).toEqual(['apple', 'core'])
    expect(names((await get('/groups?order_by=similarity&search=cherr', 'root')).body)).toEqual(['cherry'])
    expect(names((await get('/groups?order_by=similarity&top_level_only=true', 'root')).body)).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'delta',
    ])
    const page = await get('/groups?order_by=similarity&search=alp&per_page=2&page=2', 'root')
    expect(page.headers['x-total']).toBe('4')
    expect(page.body).toHaveLength(2)
  })

  test('archived groups and groups marked for deletion do not exist', async () => {
    expect(names((await get('/groups?archived=true', 'root')).body)).toEqual([])
    expect(names((await get('/groups?archived=false', 'root')).body)).toHaveLength(8)
    expect(names((await get('/groups?active=false', 'root')).body)).toEqual([])
    expect(names((await get('/groups?active=true', 'root')).body)).toHaveLength(8)
  })

  test('statistics and custom attributes are for administrators', async () => {
    const admin = await get('/groups?statistics=true&with_custom_attributes=true&search=alpha', 'root')
    expect(Object.keys(admin.body[0])).toEqual([
      ...GROUP_KEYS.slice(0, -1),
      'custom_attributes',
      'statistics',
      'marked_for_deletion_on',
      'root_storage_statistics',
    ])
    expect(admin.body[0].custom_attributes).toEqual([])
    expect(Object.keys(admin.body[0].statistics)).toEqual(STATISTICS_KEYS)
    expect(Object.values(admin.body[0].statistics)).toEqual(STATISTICS_KEYS.map(() => 0))
    expect(admin.body[0].root_storage_statistics).toBeNull()
    // Subgroups have no root storage statistics.
    expect(Object.keys(admin.body[1])).not.toContain('root_storage_statistics')
    for (const who of ['alice', undefined]) {
      const res = await get('/groups?statistics=true&with_custom_attributes=true&all_available=true', who)
      expect(Object.keys(res.body[0])).toEqual(GROUP_KEYS)
    }
  })
})

describe('GET /groups: pagination', () => {
  test('offset pages carry GitLab headers', async () => {
    const res = await get('/groups?per_page=3&page=2', 'root')
    expect(names(res.body)).toEqual(['bravo', 'charlie', 'cherry'])
    const link = (page: number) => `<${server.url}/api/v4/groups?page=${page}&per_page=3>`
    expect(res.headers).toMatchObject({
      'x-page': '2',
      'x-per-page': '3',
      'x-next-page': '3',
      'x-prev-page': '1',
      'x-total': '8',
      'x-total-pages': '3',
      link: `${link(1)}; rel="prev", ${link(3)}; rel="next", ${link(1)}; rel="first", ${link(3)}; rel="last"`,
    })
    const last = await get('/groups?per_page=3&page=3', 'root')
    expect(names(last.body)).toEqual(['core', 'delta'])
    expect(last.headers['x-next-page']).toBe('')
  })

  test('anonymous callers page by keyset on name ascending, following the Link header', async () => {
    const first = await get('/groups?pagination=keyset&per_page=2')
    expect(first.status).toBe(200)
    expect(names(first.body)).toEqual(['alpha', 'avocado'])
    expect(first.headers['x-total']).toBeUndefined()
    expect(first.headers['x-page']).toBeUndefined()
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link)
    expect(next).not.toBeNull()
    expect(next![1]).toContain('pagination=keyset')
    expect(next![1]).toContain('cursor=')
    const cursor = (position: unknown[]) => Buffer.from(JSON.stringify(position)).toString('base64url')
    const avocado = first.body[1] as { id: number; name: string }
    expect(first.headers['x-next-cursor']).toBe(cursor([avocado.name, avocado.id]))
    expect(next![1]).toContain(`cursor=${first.headers['x-next-cursor']}&`)
    expect(first.headers['x-prev-cursor']).toBeUndefined()
    const second = await request('GET', next![1].slice(server.url.length))
    expect(names(second.body)).toEqual(['delta'])
    expect(second.headers.link).toBeUndefined()
    expect(second.headers['x-next-cursor']).toBeUndefined()
    const delta = second.body[0] as { id: number; name: string }
    expect(second.headers['x-prev-cursor']).toBe(cursor([delta.name, delta.id, 'prev']))
    const back = await get(`/groups?pagination=keyset&per_page=2&cursor=${second.headers['x-prev-cursor']}`)
    expect({ names: names(back.body), next: back.headers['x-next-cursor'], prev: back.headers['x-prev-cursor'] }).toEqual({
      names: ['alpha', 'avocado'],
      next: first.headers['x-next-cursor'],
      prev: undefined,
    })
    const explicit = await get('/groups?pagination=keyset&per_page=1&order_by=name&sort=asc')
    expect(names(explicit.body)).toEqual(['alpha'])
  })

  test('keyset pages in any other order are refused with 405', async () => {
    for (const query of ['order_by=path', 'sort=desc', 'order_by=id&sort=asc', 'order_by=similarity&search=alpha']) {
      const res = await get(`/groups?pagination=keyset&${query}`)
      expect(res.status).toBe(405)
      expect(res.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' })
    }
    expect((await get('/groups?pagination=keyset&cursor=%%%')).status).toBe(400)
  })

  test('signed-in callers get offset pages even when asking for keyset, and no offset limit', async () => {
    const res = await get('/groups?pagination=keyset&per_page=2&order_by=path', 'root')
    expect(res.status).toBe(200)
    expect(res.headers['x-page']).toBe('1')
    expect(res.headers['x-total']).toBe('8')
    expect(names(res.body)).toEqual(['alpha', 'apple'])
    const far = await get('/groups?page=3000&per_page=25', 'root')
    expect(far.status).toBe(200)
    expect(far.body).toEqual([])
  })

  test('anonymous offsets past the limit are refused and point to keyset pagination', async () => {
    const res = await get('/groups?page=3000&per_page=25')
    expect(res.status).toBe(405)
    expect(res.body).toEqual({
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Group. ' +
        'Remaining records can be retrieved using keyset pagination.',
    })
  })
})

describe('GET /groups/:id/subgroups and /descendant_groups', () => {
  test('anonymous callers see public subgroups of a public group; a private group is 404', async () => {
    const res = await get(`/groups/${alpha.id}/subgroups`)
    expect(res.status).toBe(200)
    expect(names(res.body)).toEqual(['avocado'])
    expect(res.body[0].parent_id).toBe(alpha.id)
    expect(res.headers['x-total']).toBe('1')
    for (const path of [`/groups/${charlie.id}/subgroups`, `/groups/${charlie.id}/descendant_groups`, '/groups/999999/subgroups']) {
      const hidden = await get(path)
      expect(hidden.status).toBe(404)
      expect(hidden.body).toEqual({ message: '404 Group Not Found' })
    }
  })

  test('non-members see none unless all_available; members see private ones too', async () => {
    expect(names((await get(`/groups/${alpha.id}/subgroups`, 'eve')).body)).toEqual([])
    expect(names((await get(`/groups/${alpha.id}/subgroups?all_available=true`, 'eve')).body)).toEqual(['avocado'])
    expect(names((await get(`/groups/${alpha.id}/subgroups`, 'alice')).body)).toEqual(['apple', 'avocado'])
    expect(names((await get(`/groups/${charlie.id}/subgroups`, 'fay')).body)).toEqual(['cherry'])
    expect((await get(`/groups/${charlie.id}/subgroups`, 'eve')).status).toBe(404)
  })

  test('descendant groups reach every level below', async () => {
    expect(names((await get(`/groups/${alpha.id}/descendant_groups`, 'alice')).body)).toEqual(['apple', 'avocado', 'core'])
    expect(names((await get(`/groups/${alpha.id}/descendant_groups`)).body)).toEqual(['avocado'])
    expect(names((await get(`/groups/${alpha.id}/descendant_groups?order_by=id&sort=desc`, 'root')).body)).toEqual([
      'avocado',
      'core',
      'apple',
    ])
    expect(names((await get('/groups/alpha%2Fapple/subgroups', 'alice')).body)).toEqual(['core'])
    expect(names((await get('/groups/alpha%2Fapple/descendant_groups', 'alice')).body)).toEqual(['core'])
    expect(names((await get(`/groups/${core.id}/descendant_groups`, 'alice')).body)).toEqual([])
  })

  test('searches below a group match paths and names only, not full paths', async () => {
    expect(names((await get(`/groups/${alpha.id}/descendant_groups?search=alpha`, 'root')).body)).toEqual([])
    expect(names((await get(`/groups/${alpha.id}/descendant_groups?search=core`, 'root')).body)).toEqual(['core'])
    expect(names((await get(`/groups/${alpha.id}/subgroups?search=avo`, 'root')).body)).toEqual(['avocado'])
  })

  test('the list filters apply; top_level_only replaces the parent, as in GitLab', async () => {
    expect(names((await get(`/groups/${alpha.id}/descendant_groups?visibility=private`, 'root')).body)).toEqual(['apple', 'core'])
    expect(names((await get(`/groups/${alpha.id}/descendant_groups?skip_groups[]=${apple.id}`, 'root')).body)).toEqual(['avocado', 'core'])
    expect(names((await get(`/groups/${charlie.id}/subgroups?owned=true`, 'dora')).body)).toEqual([])
    expect(names((await get(`/groups/${charlie.id}/descendant_groups?min_access_level=50`, 'dora')).body)).toEqual(['cherry'])
    expect(names((await get(`/groups/${alpha.id}/subgroups?top_level_only=true`, 'root')).body)).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'delta',
    ])
  })

  test('offset pagination with headers; statistics for administrators', async () => {
    const res = await get(`/groups/${alpha.id}/descendant_groups?per_page=1&page=2`, 'root')
    expect(names(res.body)).toEqual(['avocado'])
    expect(res.headers).toMatchObject({ 'x-total': '3', 'x-total-pages': '3', 'x-page': '2', 'x-next-page': '3', 'x-prev-page': '1' })
    const keyset = await get(`/groups/${alpha.id}/subgroups?pagination=keyset`)
    expect(keyset.headers['x-page']).toBe('1')
    const stats = await get(`/groups/${alpha.id}/subgroups?statistics=true`, 'root')
    expect(Object.keys(stats.body[0].statistics)).toEqual(STATISTICS_KEYS)
    expect(Object.keys((await get(`/groups/${alpha.id}/subgroups?statistics=true`, 'alice')).body[0])).toEqual(GROUP_KEYS)
  })
})
