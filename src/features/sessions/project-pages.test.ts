import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { client } from '../../testing/http.js'
import { createPerson, createRepositoryProject, type Person } from '../../testing/repositories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'

// Project pages are reached through one catch-all route at every namespace depth; what it does not serve is the
// answer a path without a route gets.

let server: TestServer
let owner: Person
let session: TestSession
let deepPath: string

beforeAll(async () => {
  server = await startTestServer()
  const api = client(`${server.url}/api/v4`)
  owner = await createPerson(server.database.db, 'nestor')
  let parentId: number | undefined
  for (const path of ['outer', 'middle', 'inner']) {
    const group = await api('POST', '/groups', { token: owner.token, body: { name: path, path, parent_id: parentId } })
    expect(group.status, group.text).toBe(201)
    parentId = group.body.id
  }
  const project = await createRepositoryProject(api, owner, { name: 'Deep', path: 'deep', namespace_id: parentId })
  deepPath = project.path_with_namespace
  const commit = await api('POST', `/projects/${project.id}/repository/commits`, {
    token: owner.token,
    body: {
      branch: 'main',
      commit_message: 'Add JSON',
      actions: [
        { action: 'create', file_path: 'config.json', content: '{"answer": 42}\n' },
        { action: 'create', file_path: 'data.json/inside.txt', content: 'inside\n' },
      ],
    },
  })
  expect(commit.status, commit.text).toBe(201)
  session = await createTestSession(server, owner.user)
})
afterAll(() => server.close())

function visit(path: string, init: { method?: string; accept?: string } = {}) {
  return fetch(server.url + path, {
    method: init.method ?? 'GET',
    headers: { cookie: session.cookie, accept: init.accept ?? 'text/html' },
    redirect: 'manual',
  })
}

describe('project pages at any depth', () => {
  test('a project three groups deep has its pages, a trailing slash included', async () => {
    expect(deepPath).toBe('outer/middle/inner/deep')
    const tree = await visit(`/${deepPath}/-/tree/main/`)
    expect(tree.status).toBe(200)
    expect(await tree.text()).toContain('config.json')
    const overview = await visit(`/${deepPath}`)
    expect(overview.status).toBe(200)
  })

  test('a file or folder named .json is the file or folder, not a format', async () => {
    const blob = await visit(`/${deepPath}/-/blob/main/config.json`)
    expect(blob.status).toBe(200)
    expect(await blob.text()).toContain('answer')
    const raw = await visit(`/${deepPath}/-/raw/main/config.json`)
    expect([raw.status, await raw.text()]).toEqual([200, '{"answer": 42}\n'])
    const folder = await visit(`/${deepPath}/-/tree/main/data.json`)
    expect(folder.status).toBe(200)
    expect(await folder.text()).toContain('inside.txt')
  })

  test('what no page serves is the 404 page for a browser and GitLab JSON for the API', async () => {
    const unknown = await visit(`/${deepPath}/-/no-such-page`)
    expect(unknown.status).toBe(404)
    expect(await unknown.text()).toContain('<h1>404: Page not found</h1>')
    const tooShallow = await visit('/-/tree/main')
    expect(tooShallow.status).toBe(404)
    const emptySegment = await visit(`/outer//deep/-/tree/main`)
    expect(emptySegment.status).toBe(404)
    const api = await visit('/api/v4/projects/1/-/tree/main', { accept: 'application/json' })
    expect([api.status, await api.text()]).toEqual([404, '{"error":"404 Not Found"}'])
    // Rails answers a page's unknown method as it answers an unknown page.
    const put = await visit(`/${deepPath}/-/tree/main`, { method: 'PUT' })
    expect(put.status).toBe(404)
  })
})
