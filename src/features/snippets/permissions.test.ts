import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { ProjectRow } from '../../db/schema.js'
import { addTestMember, createTestGroup, createTestProject, createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
const tokens: Record<string, string | undefined> = {}
const users: Record<string, User> = {}

const NOT_FOUND = { message: '404 Snippet Not Found' }
const FORBIDDEN = { message: '403 Forbidden' }

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  for (const name of ['author', 'other', 'guest', 'reporter', 'developer', 'maintainer']) {
    users[name] = await createTestUser(db, { username: name })
    tokens[name] = (await createTestToken(db, users[name])).value
  }
  users.external = await createTestUser(db, { username: 'outsider', external: 1 })
  tokens.external = (await createTestToken(db, users.external)).value
  tokens.admin = server.rootToken
  tokens.anonymous = undefined
})
afterAll(() => server.close())

async function personal(visibility: string) {
  const res = await request('POST', '/api/v4/snippets', {
    token: tokens.author,
    body: { title: `${visibility} one`, visibility, files: [{ file_path: 'f.txt', content: visibility }] },
  })
  expect(res.status, res.text).toBe(201)
  return res.body.id as number
}

describe('personal snippets', () => {
  test('who reads which visibility', async () => {
    const expected: Record<string, Record<string, number>> = {
      private: { anonymous: 404, other: 404, external: 404, author: 200, admin: 200 },
      internal: { anonymous: 404, other: 200, external: 404, author: 200, admin: 200 },
      public: { anonymous: 200, other: 200, external: 200, author: 200, admin: 200 },
    }
    const seen: Record<string, Record<string, number>> = {}
    for (const visibility of Object.keys(expected)) {
      const id = await personal(visibility)
      seen[visibility] = {}
      for (const viewer of Object.keys(expected[visibility])) {
        const res = await request('GET', `/api/v4/snippets/${id}`, { token: tokens[viewer] })
        const raw = await request('GET', `/api/v4/snippets/${id}/raw`, { token: tokens[viewer] })
        expect(raw.status).toBe(res.status)
        if (res.status === 404) expect(res.body).toEqual(NOT_FOUND)
        seen[visibility][viewer] = res.status
      }
    }
    expect(seen).toEqual(expected)
  })

  test('only the author updates or deletes through /snippets/:id; others, admins included, get 404', async () => {
    const id = await personal('public')
    for (const viewer of ['other', 'admin']) {
      const put = await request('PUT', `/api/v4/snippets/${id}`, { token: tokens[viewer], body: { title: 'Taken' } })
      expect([viewer, put.status, put.body]).toEqual([viewer, 404, NOT_FOUND])
      const del = await request('DELETE', `/api/v4/snippets/${id}`, { token: tokens[viewer] })
      expect([viewer, del.status, del.body]).toEqual([viewer, 404, NOT_FOUND])
    }
    const anonymous = await request('PUT', `/api/v4/snippets/${id}`, { body: { title: 'Taken' } })
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
    expect((await request('PUT', `/api/v4/snippets/${id}`, { token: tokens.author, body: { title: 'Mine' } })).status).toBe(200)
  })

  test('external users and anonymous callers cannot create', async () => {
    const body = { title: 't', files: [{ file_path: 'a', content: 'a' }] }
    const external = await request('POST', '/api/v4/snippets', { token: tokens.external, body })
    expect([external.status, external.body]).toEqual([403, FORBIDDEN])
    const anonymous = await request('POST', '/api/v4/snippets', { body })
    expect([anonymous.status, anonymous.body]).toEqual([401, { message: '401 Unauthorized' }])
  })
})

describe('project snippets', () => {
  let project: ProjectRow
  let base: string

  beforeAll(async () => {
    const db = server.database.db
    const group = await createTestGroup(db, { path: 'team', visibility: 'public' })
    project = await createTestProject(db, { namespace: group, path: 'app', visibility: 'public' })
    base = `/api/v4/projects/${project.id}/snippets`
    const roles: Record<string, number> = { author: 20, guest: 10, reporter: 20, developer: 30, maintainer: 40 }
    for (const [name, level] of Object.entries(roles)) await addTestMember(db, { user: users[name], project, accessLevel: level })
  })

  async function projectSnippet(visibility: string, token = tokens.author) {
    const res = await request('POST', base, {
      token,
      body: { title: visibility, visibility, files: [{ file_path: 'f', content: visibility }] },
    })
    expect(res.status, res.text).toBe(201)
    return res.body.id as number
  }

  test('create needs Reporter', async () => {
    const statuses: Record<string, number> = {}
    for (const viewer of ['other', 'guest', 'reporter', 'developer', 'maintainer', 'admin', 'external']) {
      const res = await request('POST', base, {
        token: tokens[viewer],
        body: { title: 'by role', visibility: 'public', files: [{ file_path: 'f', content: 'x' }] },
      })
      statuses[viewer] = res.status
      if (res.status === 403) expect(res.body).toEqual(FORBIDDEN)
    }
    expect(statuses).toEqual({ other: 403, guest: 403, reporter: 201, developer: 201, maintainer: 201, admin: 201, external: 403 })
  })

  test('who reads which visibility in a public project', async () => {
    const expected: Record<string, Record<string, number>> = {
      private: { anonymous: 404, other: 404, external: 404, guest: 200, author: 200, admin: 200 },
      internal: { anonymous: 404, other: 200, external: 404, guest: 200, author: 200, admin: 200 },
      public: { anonymous: 200, other: 200, external: 200, guest: 200, author: 200, admin: 200 },
    }
    const seen: Record<string, Record<string, number>> = {}
    for (const visibility of Object.keys(expected)) {
      const id = await projectSnippet(visibility)
      seen[visibility] = {}
      for (const viewer of Object.keys(expected[visibility])) {
        const res = await request('GET', `/api/v4/snippets/${id}`, { token: tokens[viewer] })
        const projectRoute = await request('GET', `${base}/${id}`, { token: tokens[viewer] })
        // The project snippets API wants a signed-in caller for everything (GL project_snippets.rb `authenticate!`).
        const expectedThere = viewer === 'anonymous' ? [401, { message: '401 Unauthorized' }] : [res.status, res.body]
        expect([viewer, projectRoute.status, projectRoute.body]).toEqual([viewer, ...expectedThere])
        if (res.status === 404) expect(res.body).toEqual(NOT_FOUND)
        seen[visibility][viewer] = res.status
      }
    }
    expect(seen).toEqual(expected)
    const listed = await request('GET', base, { token: tokens.other })
    expect(listed.body.map((s: { visibility: string }) => s.visibility).sort()).not.toContain('private')
    const listedByGuest = await request('GET', base, { token: tokens.guest })
    expect(listedByGuest.body.map((s: { visibility: string }) => s.visibility)).toContain('private')
  })

  test('update and delete: the author, a Maintainer (except internal snippets of others), or an admin', async () => {
    const privateOne = await projectSnippet('private')
    const internalOne = await projectSnippet('internal')
    const status = async (method: 'PUT' | 'DELETE', id: number, viewer: string) => {
      const res = await request(method, `${base}/${id}`, {
        token: tokens[viewer],
        body: method === 'PUT' ? { title: `by ${viewer}` } : undefined,
      })
      return res.status
    }
    expect(await status('PUT', privateOne, 'guest')).toBe(403)
    expect(await status('PUT', privateOne, 'developer')).toBe(403)
    expect(await status('PUT', privateOne, 'maintainer')).toBe(200)
    expect(await status('PUT', privateOne, 'author')).toBe(200)
    expect(await status('PUT', privateOne, 'admin')).toBe(200)
    expect(await status('PUT', internalOne, 'maintainer')).toBe(403)
    expect(await status('DELETE', internalOne, 'maintainer')).toBe(403)
    expect(await status('DELETE', internalOne, 'developer')).toBe(403)
    expect(await status('PUT', internalOne, 'author')).toBe(200)
    expect(await status('DELETE', privateOne, 'maintainer')).toBe(204)
    expect(await status('DELETE', internalOne, 'admin')).toBe(204)
  })

  test('an author demoted to Guest may still edit but no longer delete', async () => {
    const db = server.database.db
    const writer = await createTestUser(db, { username: 'writer' })
    const writerToken = (await createTestToken(db, writer)).value
    await addTestMember(db, { user: writer, project, accessLevel: 20 })
    const id = await projectSnippet('public', writerToken)
    await db
      .updateTable('members')
      .set({ access_level: 10 })
      .where('user_id', '=', writer.id)
      .where('project_id', '=', project.id)
      .execute()
    expect((await request('PUT', `${base}/${id}`, { token: writerToken, body: { title: 'still mine' } })).status).toBe(200)
    const del = await request('DELETE', `${base}/${id}`, { token: writerToken })
    expect([del.status, del.body]).toEqual([403, FORBIDDEN])
  })

  test('a private project hides its snippets behind 404 Project; private snippets features admit members only', async () => {
    const db = server.database.db
    const hidden = await createTestProject(db, { owner: users.author, path: 'hidden', visibility: 'private' })
    const res = await request('POST', `/api/v4/projects/${hidden.id}/snippets`, {
      token: tokens.author,
      body: { title: 'h', visibility: 'public', files: [{ file_path: 'h', content: 'h' }] },
    })
    expect(res.status).toBe(201)
    const asOther = await request('GET', `/api/v4/projects/${hidden.id}/snippets/${res.body.id}`, { token: tokens.other })
    expect([asOther.status, asOther.body]).toEqual([404, { message: '404 Project Not Found' }])
    const viaPersonal = await request('GET', `/api/v4/snippets/${res.body.id}`, { token: tokens.other })
    expect([viaPersonal.status, viaPersonal.body]).toEqual([404, NOT_FOUND])

    await db.updateTable('projects').set({ snippets_access_level: 10 }).where('id', '=', project.id).execute()
    try {
      const nonMember = await request('GET', base, { token: tokens.other })
      expect([nonMember.status, nonMember.body]).toEqual([403, FORBIDDEN])
      expect((await request('GET', base, { token: tokens.guest })).status).toBe(200)
      const all = await request('GET', '/api/v4/snippets/all', { token: tokens.other })
      expect(all.body.filter((s: { project_id: number | null }) => s.project_id === project.id)).toEqual([])
    } finally {
      await db.updateTable('projects').set({ snippets_access_level: 20 }).where('id', '=', project.id).execute()
    }
  })
  test('an archived project’s snippets are read-only, for admins too', async () => {
    const db = server.database.db
    const id = await projectSnippet('public')
    await db.updateTable('projects').set({ archived: 1 }).where('id', '=', project.id).execute()
    try {
      for (const viewer of ['author', 'maintainer', 'admin']) {
        const create = await request('POST', base, {
          token: tokens[viewer],
          body: { title: 'no', visibility: 'public', files: [{ file_path: 'f', content: 'x' }] },
        })
        const put = await request('PUT', `${base}/${id}`, { token: tokens[viewer], body: { title: 'no' } })
        const del = await request('DELETE', `${base}/${id}`, { token: tokens[viewer] })
        expect([viewer, create.status, put.status, del.status, put.body]).toEqual([viewer, 403, 403, 403, FORBIDDEN])
      }
      expect((await request('GET', `${base}/${id}`, { token: tokens.other })).status).toBe(200)
    } finally {
      await db.updateTable('projects').set({ archived: 0 }).where('id', '=', project.id).execute()
    }
  })
})
