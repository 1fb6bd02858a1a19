import { afterAll, beforeAll, expect, test } from 'vitest'
import { createManyTestUsers, createTestUser } from '../testing/factories.js'
import { client } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  await createManyTestUsers(server.database.db, 10_001)
}, 120_000)
afterAll(() => server.close())

test('above 10,000 matching records the counts and the last link are left out', async () => {
  const res = await request('GET', '/api/v4/users?per_page=2&page=3&active=true', { token: server.rootToken })
  expect(res.status).toBe(200)
  expect(res.body).toHaveLength(2)
  expect(res.headers['x-page']).toBe('3')
  expect(res.headers['x-per-page']).toBe('2')
  expect(res.headers['x-next-page']).toBe('4')
  expect(res.headers['x-prev-page']).toBe('2')
  expect(res.headers['x-total']).toBeUndefined()
  expect(res.headers['x-total-pages']).toBeUndefined()
  const base = `${server.url}/api/v4/users?active=true`
  expect(res.headers.link).toBe(
    `<${base}&page=2&per_page=2>; rel="prev", <${base}&page=4&per_page=2>; rel="next", <${base}&page=1&per_page=2>; rel="first"`,
  )
})

test('at 10,000 matching records or fewer the counts are given', async () => {
  const res = await request('GET', '/api/v4/users?per_page=100&search=nobody-matches-this', { token: server.rootToken })
  expect(res.status).toBe(200)
  expect(res.body).toEqual([])
  expect(res.headers['x-total']).toBe('0')
  expect(res.headers['x-total-pages']).toBe('1')
  expect(res.headers['x-next-page']).toBe('')
  expect(res.headers['x-prev-page']).toBe('')
})

test('the same URL asked again links the pages there are now, and another query its own', async () => {
  const db = server.database.db
  await createTestUser(db, { username: 'linked' })
  const url = '/api/v4/users?search=linked&per_page=1'
  const base = `${server.url}/api/v4/users?per_page=1&search=linked`
  const first = await request('GET', url, { token: server.rootToken })
  expect(first.headers.link).toBe(`<${base.replace('?', '?page=1&')}>; rel="first", <${base.replace('?', '?page=1&')}>; rel="last"`)
  await createTestUser(db, { username: 'linkedagain' })
  const again = await request('GET', url, { token: server.rootToken })
  expect(again.headers.link).toBe(
    `<${base.replace('?', '?page=2&')}>; rel="next", <${base.replace('?', '?page=1&')}>; rel="first", <${base.replace('?', '?page=2&')}>; rel="last"`,
  )
  const other = await request('GET', '/api/v4/users?search=linkedagain&per_page=1', { token: server.rootToken })
  const otherBase = `${server.url}/api/v4/users?page=1&per_page=1&search=linkedagain`
  expect(other.headers.link).toBe(`<${otherBase}>; rel="first", <${otherBase}>; rel="last"`)
})
