import { afterAll, beforeAll, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

// Project entities are kept serialized (fragments.ts): whoever asks, and whatever changed, each answer must be the
// entity as it is now for that caller.
let server: TestServer
let request: ReturnType<typeof client>
let owner: User
let group: NamespaceRow
let personal: ProjectRow
let grouped: ProjectRow
const tokens: Record<string, string> = {}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  owner = await createTestUser(db, { username: 'olga' })
  const dev = await createTestUser(db, { username: 'dave' })
  group = await createTestGroup(db, { path: 'kept', visibility: 'public' })
  await addTestMember(db, { user: dev, group, accessLevel: 30 })
  personal = await createTestProject(db, { owner, path: 'mine', visibility: 'public' })
  grouped = await createTestProject(db, { namespace: group, path: 'ours', visibility: 'public' })
  tokens.root = server.rootToken
  tokens.owner = (await createTestToken(db, owner)).value
  tokens.dev = (await createTestToken(db, dev)).value
})
afterAll(() => server.close())

type Entity = Record<string, unknown> & { id: number }
const listed = async (token: string, id: number, query = '') => {
  const res = await request('GET', `/api/v4/projects?per_page=100${query}`, { token })
  expect(res.status).toBe(200)
  expect(res.headers['content-type']).toBe('application/json')
  return (res.body as Entity[]).find((p) => p.id === id) as Entity
}

test('a listed project is the entity GET /projects/:id answers, for each caller in turn', async () => {
  for (const round of [1, 2]) {
    for (const who of ['root', 'dev', 'owner']) {
      const single = await request('GET', `/api/v4/projects/${grouped.id}`, { token: tokens[who] })
      expect(single.headers['content-type']).toBe('application/json')
      expect({ round, who, entity: await listed(tokens[who], grouped.id) }).toEqual({ round, who, entity: single.body })
    }
  }
  const asDev = await listed(tokens.dev, grouped.id)
  const asRoot = await listed(tokens.root, grouped.id)
  expect(asDev.permissions).toEqual({ project_access: null, group_access: { access_level: 30, notification_level: 3 } })
  expect(asRoot.permissions).toEqual({ project_access: null, group_access: null })
  // Administration fields are the administrator's only.
  expect(asRoot.import_error).toBeNull()
  expect('import_error' in asDev).toBe(false)
  expect(asRoot.repository_storage).toBe('default')
  expect('repository_storage' in asDev).toBe(false)
  expect('statistics' in asRoot).toBe(false)
  expect((await listed(tokens.root, grouped.id, '&statistics=true')).statistics).toMatchObject({ commit_count: 0 })
})

test('a change to the project, its namespace, a membership or the owner shows in the next answer', async () => {
  expect((await listed(tokens.dev, grouped.id)).description).toBeNull()
  const update = await request('PUT', `/api/v4/projects/${grouped.id}`, { token: tokens.root, body: { description: 'Now described' } })
  expect(update.status).toBe(200)
  expect((await listed(tokens.dev, grouped.id)).description).toBe('Now described')

  await server.database.db.updateTable('namespaces').set({ name: 'Kept Renamed' }).where('id', '=', group.id).execute()
  expect((await listed(tokens.dev, grouped.id)).namespace).toMatchObject({ name: 'Kept Renamed' })

  const dev = await createTestUser(server.database.db, { username: 'dora' })
  const token = (await createTestToken(server.database.db, dev)).value
  expect((await listed(token, grouped.id)).permissions).toEqual({ project_access: null, group_access: null })
  await addTestMember(server.database.db, { user: dev, project: grouped, accessLevel: 40 })
  expect((await listed(token, grouped.id)).permissions).toEqual({
    project_access: { access_level: 40, notification_level: 3 },
    group_access: null,
  })

  expect((await listed(tokens.root, personal.id)).owner).toMatchObject({ username: 'olga', locked: false })
  await server.database.db.updateTable('users').set({ locked_at: new Date().toISOString() }).where('id', '=', owner.id).execute()
  expect((await listed(tokens.root, personal.id)).owner).toMatchObject({ username: 'olga', locked: true })
})

test('an owner whose lock runs out shows unlocked without any write', async () => {
  server.freeze()
  expect((await listed(tokens.root, personal.id)).owner).toMatchObject({ locked: true })
  server.travel(11 * 60 * 1000)
  expect((await listed(tokens.root, personal.id)).owner).toMatchObject({ locked: false })
})
