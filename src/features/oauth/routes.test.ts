import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { expectOAuthError, missing } from './token-fixtures.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

describe('POST /oauth/token is a protected path', () => {
  test('the 11th request within a minute from one address gets 429', async () => {
    // Throttle windows are aligned to the minute: keep all eleven requests inside one.
    server.freeze(new Date(Math.floor(Date.now() / 60_000) * 60_000 + 5_000))
    for (let i = 0; i < 10; i++)
      expectOAuthError(await request('POST', '/oauth/token', { form: true, body: {} }), 400, 'invalid_request', missing('grant_type'))
    const refused = await request('POST', '/oauth/token', {
      form: true,
      body: { grant_type: 'password', username: 'root', password: 'root-password-for-tests' },
    })
    expect(refused.status).toBe(429)
    expect(refused.text).toBe('Retry later\n')
    expect(refused.headers['content-type']).toBe('text/plain')
    expect(refused.headers['ratelimit-name']).toBe('throttle_unauthenticated_protected_paths')
    // Revocation and token info are not throttled.
    expect((await request('POST', '/oauth/revoke', { form: true, body: { token: 'x' } })).status).toBe(200)
    expect((await request('GET', '/oauth/token/info')).status).toBe(401)
  })
})
