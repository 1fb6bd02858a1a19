import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow, ProjectUpdate } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
const tokens: Record<string, string> = {}
let anna: User
let group: NamespaceRow
let subgroup: NamespaceRow
const p: Record<string, ProjectRow> = {}

async function project(name: string, options: Parameters<typeof createTestProject>[1], changes: ProjectUpdate = {}) {
  const db = server.database.db
  const row = await createTestProject(db, options)
  p[name] = await db.updateTable('projects').set(changes).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow()
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  tokens.root = server.rootToken
  anna = await createTestUser(db, { username: 'anna' })
  const bert = await createTestUser(db, { username: 'bert' })
  const carl = await createTestUser(db, { username: 'carl' })
  const ext = await createTestUser(db, { username: 'ext', external: 1 })
  for (const [name, user] of Object.entries({ anna, bert, carl, ext })) tokens[name] = (await createTestToken(db, user)).value
  group = await createTestGroup(db, { path: 'acme', name: 'Acme Corp', visibility: 'public' })
  subgroup = await createTestGroup(db, { path: 'labs', parent: group, visibility: 'public' })
  await addTestMember(db, { user: anna, group, accessLevel: 50 })
  await addTestMember(db, { user: bert, group, accessLevel: 30 })
  await addTestMember(db, { user: ext, group, accessLevel: 5 })
  const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`
  await project(
    'one',
    { owner: anna, path: 'a-one', name: 'Alpha One', visibility: 'public' },
    { description: 'the first project', topics: '["ruby","web"]', last_activity_at: day(5), updated_at: day(5), star_count: 3 },
  )
  await project(
    'two',
    { owner: anna, path: 'b-two', name: 'Beta Two', visibility: 'private' },
    { last_activity_at: day(4), updated_at: day(1) },
  )
  await project(
    'three',
    { namespace: group, path: 'c-three', name: 'Gamma Three', visibility: 'internal' },
    { archived: 1, topics: '["Ruby"]', last_activity_at: day(3), updated_at: day(2), star_count: 1 },
  )
  await project(
    'four',
    { namespace: group, path: 'd-four', name: 'Delta Four', visibility: 'private' },
    { issues_access_level: 0, last_activity_at: day(2), updated_at: day(3) },
  )
  await project(
    'five',
    { owner: bert, path: 'e-five', name: 'Epsilon Five', visibility: 'public' },
    { merge_requests_access_level: 10, last_activity_at: day(1), updated_at: day(4), star_count: 2 },
  )
  await project(
    'six',
    { owner: carl, path: 'f-six', name: 'Zeta Six', visibility: 'internal' },
    { last_activity_at: day(6), updated_at: day(6) },
  )
  await project(
    'seven',
    { namespace: subgroup, path: 'g-seven', name: 'Eta Seven', visibility: 'public' },
    { last_activity_at: day(7), updated_at: day(7) },
  )
  await db
    .insertInto('project_stars')
    .values({ user_id: carl.id, project_id: p.one.id, created_at: day(8) })
    .execute()
})
afterAll(() => server.close())

type Name = 'one' | 'two' | 'three' | 'four' | 'five' | 'six' | 'seven'

async function list(query: string, who?: string): Promise<Name[]> {
  const res = await request('GET', `/api/v4/projects${query}`, { token: who ? tokens[who] : undefined })
  expect(res.status, res.text).toBe(200)
  return res.body.map((row: { id: number }) => Object.keys(p).find((k) => p[k].id === row.id))
}

describe('GET /projects: who sees what', () => {
  test('anonymous callers see public projects, newest first', async () => {
    expect(await list('')).toEqual(['seven', 'five', 'one'])
  })

  test('signed-in users see internal projects and their own; external users only public ones and their own', async () => {
    expect(await list('', 'carl')).toEqual(['seven', 'six', 'five', 'three', 'one'])
    expect(await list('', 'ext')).toEqual(['seven', 'five', 'one'])
    expect(await list('', 'bert')).toEqual(['seven', 'six', 'five', 'four', 'three', 'one'])
  })

  test('administrators see every project', async () => {
    expect(await list('', 'root')).toEqual(['seven', 'six', 'five', 'four', 'three', 'two', 'one'])
  })
})

describe('GET /projects: filters', () => {
  test('archived=true lists only archived projects, archived=false only the others', async () => {
    expect(await list('?archived=true', 'root')).toEqual(['three'])
    expect(await list('?archived=false', 'root')).toEqual(['seven', 'six', 'five', 'four', 'two', 'one'])
  })

  test('visibility', async () => {
    expect(await list('?visibility=internal', 'root')).toEqual(['six', 'three'])
    expect(await list('?visibility=private', 'carl')).toEqual([])
    const bad = await request('GET', '/api/v4/projects?visibility=secret')
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'visibility does not have a valid value' })
  })

  test('search matches paths, names and descriptions; short queries must match whole', async () => {
    expect(await list('?search=first', 'root')).toEqual(['one'])
    expect(await list('?search=GAMMA', 'root')).toEqual(['three'])
    expect(await list('?search=alpha%20one', 'root')).toEqual(['one'])
    expect(await list('?search=on', 'root')).toEqual([])
    expect(await list('?search=c-three', 'root')).toEqual(['three'])
    // Names of namespaces count only with search_namespaces.
    expect(await list('?search=acme', 'root')).toEqual([])
    expect(await list('?search=acme&search_namespaces=true', 'root')).toEqual(['seven', 'four', 'three'])
    expect(await list('?search=Corp%20Delta&search_namespaces=true', 'root')).toEqual(['four'])
  })

  test('owned: personal projects and projects where the user is Owner through a group', async () => {
    expect(await list('?owned=true', 'anna')).toEqual(['seven', 'four', 'three', 'two', 'one'])
    expect(await list('?owned=true', 'bert')).toEqual(['five'])
    expect(await list('?owned=true')).toEqual([])
  })

  test('membership and min_access_level use the caller’s roles, even for administrators', async () => {
    expect(await list('?membership=true', 'bert')).toEqual(['seven', 'five', 'four', 'three'])
    expect(await list('?membership=true', 'root')).toEqual([])
    expect(await list('?min_access_level=40', 'bert')).toEqual(['five'])
    expect(await list('?min_access_level=30', 'bert')).toEqual(['seven', 'five', 'four', 'three'])
    // Minimal Access in a group gives no role on its projects.
    expect(await list('?min_access_level=5', 'ext')).toEqual([])
    expect(await list('?membership=true')).toEqual([])
    const bad = await request('GET', '/api/v4/projects?min_access_level=25', { token: tokens.bert })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'min_access_level does not have a valid value' })
  })

  test('starred', async () => {
    expect(await list('?starred=true', 'carl')).toEqual(['one'])
    expect(await list('?starred=true', 'bert')).toEqual([])
    // Anonymous callers have no stars, so the filter does nothing.
    expect(await list('?starred=true')).toEqual(['seven', 'five', 'one'])
  })

  test('with_issues_enabled and with_merge_requests_enabled follow the caller’s access to the feature', async () => {
    expect(await list('?with_issues_enabled=true', 'anna')).toEqual(['seven', 'six', 'five', 'three', 'two', 'one'])
    expect(await list('?with_merge_requests_enabled=true', 'carl')).toEqual(['seven', 'six', 'three', 'one'])
    expect(await list('?with_merge_requests_enabled=true', 'bert')).toEqual(['seven', 'six', 'five', 'four', 'three', 'one'])
    expect(await list('?with_merge_requests_enabled=true', 'root')).toEqual(['seven', 'six', 'five', 'four', 'three', 'two', 'one'])
  })

  test('topic: every topic given, case-insensitively, as a list or comma-separated', async () => {
    expect(await list('?topic=ruby', 'root')).toEqual(['three', 'one'])
    expect(await list('?topic=RUBY,web', 'root')).toEqual(['one'])
    expect(await list('?topic[]=ruby&topic[]=web', 'root')).toEqual(['one'])
    expect(await list('?topic=go', 'root')).toEqual([])
  })

  test('id_after and id_before', async () => {
    expect(await list(`?id_after=${p.three.id}&id_before=${p.six.id}`, 'root')).toEqual(['five', 'four'])
  })

  test('last_activity_after and last_activity_before are strict', async () => {
    expect(await list('?last_activity_after=2026-01-05T00:00:00Z', 'root')).toEqual(['seven', 'six'])
    expect(await list('?last_activity_before=2026-01-02', 'root')).toEqual(['five'])
    const bad = await request('GET', '/api/v4/projects?last_activity_after=yesterday')
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'last_activity_after is invalid' })
  })

  test('updated_after and updated_before need order_by=updated_at', async () => {
    expect(await list('?updated_after=2026-01-04T00:00:00Z&order_by=updated_at&sort=asc', 'root')).toEqual(['five', 'one', 'six', 'seven'])
    expect(await list('?updated_before=2026-01-02T00:00:00Z&order_by=updated_at', 'root')).toEqual(['three', 'two'])
    const refused = await request('GET', '/api/v4/projects?updated_after=2026-01-04T00:00:00Z', { token: tokens.root })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({ message: '400 Bad request - `updated_at` filter and `updated_at` sorting must be paired' })
  })

  test('repository_storage filters for administrators only', async () => {
    expect(await list('?repository_storage=other', 'root')).toEqual([])
    expect(await list('?repository_storage=default&visibility=private', 'root')).toEqual(['four', 'two'])
    expect(await list('?repository_storage=other', 'carl')).toEqual(['seven', 'six', 'five', 'three', 'one'])
  })

  test('filters nothing can match: languages, imports, topic ids', async () => {
    expect(await list('?with_programming_language=Ruby', 'root')).toEqual([])
    expect(await list('?imported=true', 'root')).toEqual([])
    expect(await list('?topic_id=1', 'root')).toEqual([])
  })
})

describe('GET /projects: order', () => {
  test('order_by and sort, with the id breaking ties in the same direction', async () => {
    expect(await list('?order_by=name&sort=asc', 'root')).toEqual(['one', 'two', 'four', 'five', 'seven', 'three', 'six'])
    expect(await list('?order_by=path&sort=desc', 'root')).toEqual(['seven', 'six', 'five', 'four', 'three', 'two', 'one'])
    expect(await list('?order_by=id&sort=asc', 'root')).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven'])
    expect(await list('?order_by=created_at&sort=asc', 'root')).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven'])
    expect(await list('?order_by=last_activity_at', 'root')).toEqual(['seven', 'six', 'one', 'two', 'three', 'four', 'five'])
    expect(await list('?order_by=star_count', 'root')).toEqual(['one', 'five', 'three', 'seven', 'six', 'four', 'two'])
    expect(await list('?order_by=star_count&sort=asc', 'root')).toEqual(['two', 'four', 'six', 'seven', 'three', 'five', 'one'])
  })

  test('statistics orders fall back to the default for non-administrators; sizes are all zero', async () => {
    expect(await list('?order_by=repository_size&sort=asc', 'root')).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven'])
    expect(await list('?order_by=storage_size', 'carl')).toEqual(['seven', 'six', 'five', 'three', 'one'])
  })

  test('similarity ranks the caller’s own projects by how alike path and name are to the search', async () => {
    expect(await list('?order_by=similarity&search=five', 'bert')).toEqual(['five'])
    expect(await list('?order_by=similarity&search=three', 'anna')).toEqual(['three'])
    expect(await list('?order_by=similarity&search=e', 'anna')).toEqual([])
    // Without a search the order is the default one.
    expect(await list('?order_by=similarity', 'carl')).toEqual(['seven', 'six', 'five', 'three', 'one'])
  })

  test('bad order values are refused', async () => {
    const res = await request('GET', '/api/v4/projects?order_by=title')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'order_by does not have a valid value' })
  })
})

describe('GET /projects: pagination', () => {
  test('offset pages carry GitLab’s headers', async () => {
    const res = await request('GET', '/api/v4/projects?per_page=2&page=2&order_by=id&sort=asc', { token: tokens.root })
    expect(res.status).toBe(200)
    expect(res.body.map((r: { id: number }) => r.id)).toEqual([p.three.id, p.four.id])
    const base = `${server.url}/api/v4/projects?order_by=id`
    expect(res.headers.link).toBe(
      `<${base}&page=1&per_page=2&sort=asc>; rel="prev", <${base}&page=3&per_page=2&sort=asc>; rel="next", ` +
        `<${base}&page=1&per_page=2&sort=asc>; rel="first", <${base}&page=4&per_page=2&sort=asc>; rel="last"`,
    )
    expect(res.headers['x-page']).toBe('2')
    expect(res.headers['x-per-page']).toBe('2')
    expect(res.headers['x-next-page']).toBe('3')
    expect(res.headers['x-prev-page']).toBe('1')
    expect(res.headers['x-total']).toBe('7')
    expect(res.headers['x-total-pages']).toBe('4')
  })

  test('offsets past the limit are refused for projects', async () => {
    const res = await request('GET', '/api/v4/projects?page=2501&per_page=20')
    expect(res.status).toBe(405)
    expect(res.body).toEqual({
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. ' +
        'Remaining records can be retrieved using keyset pagination.',
    })
    expect((await request('GET', '/api/v4/projects?page=2500&per_page=20')).status).toBe(200)
  })

  test('keyset pages by id follow the Link header, column style, to the end', async () => {
    const seen: number[] = []
    let next: string | undefined = '/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=3'
    const links: string[] = []
    while (next) {
      const res = await request('GET', next, { token: tokens.root })
      expect(res.status).toBe(200)
      expect(res.headers['x-total']).toBeUndefined()
      seen.push(...res.body.map((r: { id: number }) => r.id))
      const link = res.headers.link
      if (!link) break
      links.push(link)
      next = /^<([^>]+)>; rel="next"$/.exec(link)![1].slice(server.url.length)
    }
    expect(seen).toEqual(Object.values(p).map((r) => r.id))
    expect(links[0]).toBe(
      `<${server.url}/api/v4/projects?id_after=${p.three.id}&order_by=id&pagination=keyset&per_page=3&sort=asc>; rel="next"`,
    )
    expect(links).toHaveLength(2)
  })

  test('keyset pages descending continue with id_before; a page ending the list exactly links to an empty one', async () => {
    const first = await request('GET', '/api/v4/projects?pagination=keyset&order_by=id&per_page=3&archived=false', { token: tokens.root })
    expect(first.body.map((r: { id: number }) => r.id)).toEqual([p.seven.id, p.six.id, p.five.id])
    expect(first.headers.link).toBe(
      `<${server.url}/api/v4/projects?archived=false&id_before=${p.five.id}&order_by=id&pagination=keyset&per_page=3>; rel="next"`,
    )
    const second = await request('GET', `/api/v4/projects?pagination=keyset&order_by=id&per_page=3&archived=false&id_before=${p.five.id}`, {
      token: tokens.root,
    })
    expect(second.body.map((r: { id: number }) => r.id)).toEqual([p.four.id, p.two.id, p.one.id])
    const third = await request('GET', `/api/v4/projects?pagination=keyset&order_by=id&per_page=3&archived=false&id_before=${p.one.id}`)
    expect(third.body).toEqual([])
    expect(third.headers.link).toBeUndefined()
  })

  test('keyset pagination needs order_by=id', async () => {
    for (const query of ['pagination=keyset', 'pagination=keyset&order_by=name']) {
      const res = await request('GET', `/api/v4/projects?${query}`)
      expect(res.status).toBe(405)
      expect(res.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' })
    }
  })
})

describe('GET /users/:user_id/projects', () => {
  test('the user’s personal projects the caller may see, by id or username', async () => {
    const byName = await request('GET', '/api/v4/users/anna/projects', { token: tokens.carl })
    expect(byName.status).toBe(200)
    expect(byName.body.map((r: { id: number }) => r.id)).toEqual([p.one.id])
    expect(byName.body[0].permissions).toBeDefined()
    const own = await request('GET', `/api/v4/users/${anna.id}/projects?order_by=id&sort=asc`, { token: tokens.anna })
    expect(own.body.map((r: { id: number }) => r.id)).toEqual([p.one.id, p.two.id])
    const anonymous = await request('GET', '/api/v4/users/anna/projects')
    expect(anonymous.body.map((r: { id: number }) => r.id)).toEqual([p.one.id])
    expect(anonymous.body[0].permissions).toBeUndefined()
  })

  test('filters, keyset pages and unknown users', async () => {
    const filtered = await request('GET', '/api/v4/users/anna/projects?visibility=private', { token: tokens.root })
    expect(filtered.body.map((r: { id: number }) => r.id)).toEqual([p.two.id])
    const keyset = await request('GET', '/api/v4/users/anna/projects?pagination=keyset&order_by=id&per_page=1', { token: tokens.root })
    expect(keyset.headers.link).toBe(
      `<${server.url}/api/v4/users/anna/projects?id_before=${p.two.id}&order_by=id&pagination=keyset&per_page=1>; rel="next"`,
    )
    const missing = await request('GET', '/api/v4/users/nobody/projects')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 User Not Found' })
  })
})

describe('GET /groups/:id/projects', () => {
  async function groupList(path: string, who?: string): Promise<Name[]> {
    const res = await request('GET', `/api/v4/groups/${path}`, { token: who ? tokens[who] : undefined })
    expect(res.status, res.text).toBe(200)
    return res.body.map((row: { id: number }) => Object.keys(p).find((k) => p[k].id === row.id))
  }

  test('the group’s own projects, with subgroups or ancestors when asked', async () => {
    expect(await groupList('acme/projects', 'anna')).toEqual(['four', 'three'])
    expect(await groupList('acme/projects?include_subgroups=true', 'anna')).toEqual(['seven', 'four', 'three'])
    expect(await groupList(`${subgroup.id}/projects?include_ancestor_groups=true`, 'anna')).toEqual(['seven', 'four', 'three'])
    expect(await groupList('acme%2Flabs/projects')).toEqual(['seven'])
  })

  test('visibility and the usual filters', async () => {
    expect(await groupList('acme/projects')).toEqual([])
    expect(await groupList('acme/projects', 'carl')).toEqual(['three'])
    expect(await groupList('acme/projects?archived=false', 'anna')).toEqual(['four'])
    expect(await groupList('acme/projects?order_by=name&sort=asc', 'anna')).toEqual(['four', 'three'])
    expect(await groupList('acme/projects?search=delta', 'anna')).toEqual(['four'])
    expect(await groupList('acme/projects?owned=true&include_subgroups=true', 'bert')).toEqual([])
    expect(await groupList('acme/projects?min_access_level=30', 'bert')).toEqual(['four', 'three'])
    expect(await groupList('acme/projects?with_issues_enabled=true', 'anna')).toEqual(['three'])
    expect(await groupList('acme/projects?with_shared=false', 'anna')).toEqual(['four', 'three'])
  })

  test('offset pages and unknown groups', async () => {
    const res = await request('GET', '/api/v4/groups/acme/projects?per_page=1&include_subgroups=true', { token: tokens.anna })
    expect(res.headers['x-total']).toBe('3')
    expect(res.headers['x-next-page']).toBe('2')
    const missing = await request('GET', '/api/v4/groups/nothing/projects')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Group Not Found' })
  })
})
