import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { relocateNamespace } from '../namespaces/store.js'
import { findNamespaceById } from '../access/index.js'

let server: TestServer
let request: ReturnType<typeof client>
let owner: User
let ownerToken: string
let acme: NamespaceRow
let other: NamespaceRow

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  owner = await createTestUser(db, { username: 'olga' })
  ownerToken = (await createTestToken(db, owner)).value
  acme = await createTestGroup(db, { path: 'acme', visibility: 'public' })
  other = await createTestGroup(db, { path: 'other', visibility: 'public' })
  await addTestMember(db, { user: owner, group: acme, accessLevel: 50 })
  await addTestMember(db, { user: owner, group: other, accessLevel: 50 })
})
afterAll(() => server.close())

async function renamed(from: string, to: string, visibility: 'public' | 'private' = 'public'): Promise<ProjectRow> {
  const project = await createTestProject(server.database.db, { namespace: acme, path: from, visibility })
  const res = await request('PUT', `/api/v4/projects/${project.id}`, { token: ownerToken, body: { path: to } })
  expect(res.status, res.text).toBe(200)
  return project
}

function movedText(location: string) {
  return `This resource has been moved permanently to ${location}`
}

describe('a renamed project', () => {
  test('GET by the old path answers 301 to the id, keeping the query', async () => {
    const project = await renamed('old-name', 'new-name')
    const res = await request('GET', '/api/v4/projects/acme%2Fold-name?statistics=true&license=false')
    expect(res.status).toBe(301)
    const location = `${server.url}/api/v4/projects/${project.id}?statistics=true&license=false`
    expect(res.headers.location).toBe(location)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(res.text).toBe(movedText(location))
    const followed = await request('GET', res.headers.location.slice(server.url.length))
    expect(followed.status).toBe(200)
    expect(followed.body.path_with_namespace).toBe('acme/new-name')
  })

  test('sub-routes and the .json suffix keep their place; HEAD redirects too', async () => {
    const project = await renamed('sub-old', 'sub-new')
    const users = await request('GET', '/api/v4/projects/acme%2Fsub-old/users?per_page=5')
    expect(users.status).toBe(301)
    expect(users.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}/users?per_page=5`)
    const starrers = await request('GET', '/api/v4/projects/acme%2Fsub-old/starrers')
    expect(starrers.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}/starrers`)
    const json = await request('GET', '/api/v4/projects/acme%2Fsub-old.json')
    expect(json.status).toBe(301)
    expect(json.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}.json`)
    const head = await request('HEAD', '/api/v4/projects/acme%2Fsub-old')
    expect(head.status).toBe(301)
    expect(head.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}`)
  })

  test('other methods by the old path are refused with 405 and change nothing', async () => {
    const project = await renamed('write-old', 'write-new')
    for (const [method, path] of [
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/star'],
      ['POST', '/archive'],
      ['PUT', '/transfer'],
    ] as const) {
      const res = await request(method, `/api/v4/projects/acme%2Fwrite-old${path}`, {
        token: ownerToken,
        body: { description: 'x', namespace: 'other' },
      })
      expect(res.status, `${method} ${path}`).toBe(405)
      expect(res.body).toEqual({ message: 'Non GET methods are not allowed for moved projects' })
    }
    const shown = await request('GET', `/api/v4/projects/${project.id}`, { token: ownerToken })
    expect(shown.body).toMatchObject({ description: null, star_count: 0, archived: false, path_with_namespace: 'acme/write-new' })
  })

  test('the old path of a project the caller cannot see is simply not found', async () => {
    await renamed('secret-old', 'secret-new', 'private')
    const res = await request('GET', '/api/v4/projects/acme%2Fsecret-old')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: '404 Project Not Found' })
    expect((await request('GET', '/api/v4/projects/acme%2Fsecret-old', { token: ownerToken })).status).toBe(301)
  })

  test('the current path in other letter case redirects to the id as well', async () => {
    const project = await renamed('case-old', 'Case-New')
    const res = await request('GET', '/api/v4/projects/ACME%2Fcase-new/users')
    expect(res.status).toBe(301)
    expect(res.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}/users`)
    expect((await request('GET', '/api/v4/projects/acme%2FCase-New')).status).toBe(200)
  })

  test('renaming a project back and forth keeps one redirect per old path', async () => {
    const project = await renamed('ping', 'pong')
    await request('PUT', `/api/v4/projects/${project.id}`, { token: ownerToken, body: { path: 'ping' } })
    expect((await request('GET', '/api/v4/projects/acme%2Fping')).status).toBe(200)
    const pong = await request('GET', '/api/v4/projects/acme%2Fpong')
    expect(pong.status).toBe(301)
    const routes = await server.database.db.selectFrom('redirect_routes').select('path').where('project_id', '=', project.id).execute()
    expect(routes).toEqual([{ path: 'acme/pong' }])
  })

  test('a new project may take the old path, and then wins it', async () => {
    const project = await renamed('reused', 'moved-on')
    const created = await request('POST', '/api/v4/projects', {
      token: ownerToken,
      body: { path: 'reused', name: 'Reused again', namespace_id: acme.id, visibility: 'public' },
    })
    expect(created.status, created.text).toBe(201)
    const res = await request('GET', '/api/v4/projects/acme%2Freused')
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(created.body.id)
    const routes = await server.database.db.selectFrom('redirect_routes').select('path').where('project_id', '=', project.id).execute()
    expect(routes).toEqual([])
  })
})

describe('a transferred project', () => {
  test('its old path redirects to its id', async () => {
    const project = await createTestProject(server.database.db, { namespace: acme, path: 'traveller', visibility: 'public' })
    const res = await request('PUT', `/api/v4/projects/${project.id}/transfer`, { token: ownerToken, body: { namespace: 'other' } })
    expect(res.status, res.text).toBe(200)
    const moved = await request('GET', '/api/v4/projects/acme%2Ftraveller/users?search=olga')
    expect(moved.status).toBe(301)
    expect(moved.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}/users?search=olga`)
    expect((await request('POST', '/api/v4/projects/acme%2Ftraveller/star', { token: ownerToken })).status).toBe(405)
  })
})

describe('a project of a renamed group', () => {
  test('moves when the group is renamed through the API; its old path redirects', async () => {
    const db = server.database.db
    const group = await createTestGroup(db, { path: 'squad', visibility: 'public' })
    await addTestMember(db, { user: owner, group, accessLevel: 50 })
    const project = await createTestProject(db, { namespace: group, path: 'kit', visibility: 'public' })
    const renamedGroup = await request('PUT', `/api/v4/groups/${group.id}`, { token: ownerToken, body: { path: 'platoon' } })
    expect(renamedGroup.status, renamedGroup.text).toBe(200)
    expect((await request('GET', '/api/v4/projects/platoon%2Fkit')).body.id).toBe(project.id)
    const old = await request('GET', '/api/v4/projects/squad%2Fkit/users')
    expect(old.status).toBe(301)
    expect(old.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}/users`)
    expect((await request('PUT', '/api/v4/projects/squad%2Fkit', { token: ownerToken, body: { description: 'x' } })).status).toBe(405)
  })

  test('moves with the group; its old path redirects', async () => {
    const db = server.database.db
    const group = await createTestGroup(db, { path: 'team', visibility: 'public' })
    const sub = await createTestGroup(db, { path: 'sub', parent: group, visibility: 'public' })
    const project = await createTestProject(db, { namespace: sub, path: 'tool', visibility: 'public' })
    const [row] = await findNamespaceById(db, group.id)
    await relocateNamespace(
      db,
      row,
      { name: 'crew', path: 'crew', fullPath: 'crew', fullName: 'crew', parent: undefined },
      new Date().toISOString(),
    )
    const current = await request('GET', '/api/v4/projects/crew%2Fsub%2Ftool')
    expect(current.status).toBe(200)
    expect(current.body).toMatchObject({ id: project.id, path_with_namespace: 'crew/sub/tool', name_with_namespace: 'crew / sub / tool' })
    const old = await request('GET', '/api/v4/projects/team%2Fsub%2Ftool?simple=true')
    expect(old.status).toBe(301)
    expect(old.headers.location).toBe(`${server.url}/api/v4/projects/${project.id}?simple=true`)
  })
})
