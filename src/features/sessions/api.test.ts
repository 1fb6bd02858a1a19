import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defaultSettings } from '../../core/settings.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession } from '../../testing/sessions.js'
import { authenticityTokenOf, webClient } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>

const UNAUTHORIZED = { message: '401 Unauthorized' }

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: { throttle_protected_paths_enabled: false } })
})
afterAll(() => server.close())

/** root signed in through the form: the cookie and the page's CSRF token. */
async function rootSession() {
  const web = webClient(server.url)
  expect((await web.signIn('root', 'root-password-for-tests')).status).toBe(302)
  const token = authenticityTokenOf((await web.request('GET', '/')).text)
  return { cookie: web.cookieHeader, token }
}

describe('API requests authenticated by the session cookie', () => {
  test('reads (GET, HEAD) need only the cookie', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    const res = await request('GET', '/api/v4/user', { headers: { cookie: web.cookieHeader } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: user.id, username: user.username })
    const head = await request('HEAD', '/api/v4/user', { headers: { cookie: web.cookieHeader } })
    expect(head.status).toBe(200)
  })

  test('writes without a valid X-CSRF-Token are anonymous; with the session token they work', async () => {
    const { cookie, token } = await rootSession()
    const target = await createTestUser(server.database.db)
    const update = `/api/v4/users/${target.id}`
    for (const headers of <Record<string, string>[]>[{ cookie }, { cookie, 'x-csrf-token': '' }, { cookie, 'x-csrf-token': 'forged' }]) {
      const put = await request('PUT', update, { headers, body: { bio: 'changed' } })
      expect(put.status).toBe(401)
      expect(put.body).toEqual(UNAUTHORIZED)
      const post = await request('POST', `/api/v4/users/${target.id}/block`, { headers })
      expect(post.status).toBe(401)
    }
    // A token of another session does not fit this one.
    const other = await createTestSession(server, null)
    expect((await request('PUT', update, { headers: { cookie, 'x-csrf-token': other.csrfToken }, body: { bio: 'x' } })).status).toBe(401)
    expect((await request('PUT', update, { headers: { cookie }, body: { bio: 'x', authenticity_token: 'forged' } })).status).toBe(401)
    // Rails reads the token from the authenticity_token parameter too.
    const viaParam = await request('PUT', update, { headers: { cookie }, body: { bio: 'param', authenticity_token: token } })
    expect(viaParam.status).toBe(200)
    expect(viaParam.body.bio).toBe('param')

    const put = await request('PUT', update, { headers: { cookie, 'x-csrf-token': token }, body: { bio: 'changed' } })
    expect(put.status).toBe(200)
    expect(put.body.bio).toBe('changed')
    const block = await request('POST', `/api/v4/users/${target.id}/block`, { headers: { cookie, 'x-csrf-token': token } })
    expect(block.status).toBe(201)
    expect(block.body).toBe(true)
  })

  test('sudo is refused to sessions: 403, GitLab text', async () => {
    const { cookie } = await rootSession()
    const target = await createTestUser(server.database.db)
    const res = await request('GET', `/api/v4/user?sudo=${target.username}`, { headers: { cookie } })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo' })
    const header = await request('GET', '/api/v4/user', { headers: { cookie, sudo: String(target.id) } })
    expect(header.status).toBe(403)
    expect(header.body).toEqual({ message: '403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo' })

    // A non-administrator's session is refused earlier, for not being an administrator.
    const user = await createTestUser(server.database.db)
    const session = await createTestSession(server, user)
    const notAdmin = await request('GET', '/api/v4/user', { headers: { cookie: session.cookie, sudo: target.username } })
    expect(notAdmin.status).toBe(403)
    expect(notAdmin.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' })
  })

  test('a token wins over the cookie', async () => {
    const user = await createTestUser(server.database.db)
    const other = await createTestUser(server.database.db)
    const token = await createTestToken(server.database.db, other)
    const session = await createTestSession(server, user)
    const res = await request('GET', '/api/v4/user', { token: token.value, headers: { cookie: session.cookie } })
    expect(res.body.username).toBe(other.username)
  })

  test('visitor, unknown, expired and ended sessions and blocked users are anonymous', async () => {
    const visitor = await createTestSession(server, null)
    expect((await request('GET', '/api/v4/user', { headers: { cookie: visitor.cookie } })).status).toBe(401)
    expect((await request('GET', '/api/v4/user', { headers: { cookie: '_svc_session=unknown' } })).status).toBe(401)

    const blocked = await createTestUser(server.database.db, { state: 'blocked' })
    const blockedSession = await createTestSession(server, blocked)
    const refused = await request('GET', '/api/v4/user', { headers: { cookie: blockedSession.cookie } })
    expect(refused.status).toBe(401)
    expect(refused.body).toEqual(UNAUTHORIZED)

    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    const cookie = web.cookieHeader
    const token = authenticityTokenOf((await web.request('GET', '/')).text)
    await web.request('DELETE', '/users/sign_out', { headers: { 'x-csrf-token': token } })
    expect((await request('GET', '/api/v4/user', { headers: { cookie } })).status).toBe(401)

    const later = await createTestSession(server, user)
    server.travel(defaultSettings.session_expire_delay * 60_000 + 1000)
    expect((await request('GET', '/api/v4/user', { headers: { cookie: later.cookie } })).status).toBe(401)
  })
})
