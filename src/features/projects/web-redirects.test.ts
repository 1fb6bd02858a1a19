import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestGroup, createTestProject } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { relocateNamespace } from '../namespaces/store.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  const group = await createTestGroup(db, { path: 'old-team' })
  await createTestProject(db, { namespace: group, path: 'site' })
  await createTestProject(db, { namespace: group, path: 'secret', visibility: 'private' })
  await relocateNamespace(
    db,
    group,
    { name: 'new-team', path: 'new-team', fullPath: 'new-team', fullName: 'new-team', parent: undefined },
    new Date().toISOString(),
  )
})

afterAll(() => server?.close())

test('the web URL of a project under its old path redirects to the new path, keeping sub-pages and the query', async () => {
  const home = await request('GET', '/old-team/site')
  expect(home.status).toBe(301)
  expect(home.headers.location).toBe(`${server.config.externalUrl}/new-team/site`)
  expect(home.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(home.text).toBe(`<html><body>You are being <a href="${server.config.externalUrl}/new-team/site">redirected</a>.</body></html>`)

  const page = await request('GET', '/OLD-TEAM/site/-/issues?state=opened&sort=asc')
  expect(page.status).toBe(301)
  expect(page.headers.location).toBe(`${server.config.externalUrl}/new-team/site/-/issues?state=opened&sort=asc`)

  const clone = await request('GET', '/old-team/site.git/info/refs?service=git-upload-pack')
  expect(clone.status).toBe(301)
  expect(clone.headers.location).toBe(`${server.config.externalUrl}/new-team/site.git/info/refs?service=git-upload-pack`)
})

test('projects the visitor cannot see, paths never used and other methods are not redirected', async () => {
  // A visitor goes to sign in, whether the project is hidden or was never there (GL find_routable!).
  for (const path of ['/old-team/secret', '/old-team/nothing']) {
    const response = await request('GET', path)
    expect(response.status).toBe(302)
    expect(response.headers.location).toBe('/users/sign_in')
  }
  const post = await request('POST', '/old-team/site')
  expect(post.status).toBe(404)
  expect(post.body).toEqual({ error: '404 Not Found' })
  expect(post.headers.location).toBeUndefined()
})
