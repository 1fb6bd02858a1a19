import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import {
  createTestApplication,
  createTestGrant,
  disableProtectedPathThrottle,
  REDIRECT_URI,
  type TestApplication,
} from './token-fixtures.js'

let server: TestServer
let request: ReturnType<typeof client>
let user: User
let app: TestApplication

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  await disableProtectedPathThrottle(server)
  user = await createTestUser(server.database.db)
  app = await createTestApplication(server.database.db)
})
afterAll(() => server.close())

const INVALID = { error: 'invalid_token', error_description: 'The access token is invalid', state: 'unauthorized' }
const EXPIRED = { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' }
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }

async function issue(scopes = 'api read_user') {
  const grant = await createTestGrant(server.database.db, app, user, { scopes })
  const response = await request('POST', '/oauth/token', {
    form: true,
    body: {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: app.clientId,
      client_secret: app.secret,
    },
  })
  expect(response.status).toBe(200)
  return response.body as { access_token: string; refresh_token: string; created_at: number }
}

function bearer(token: string) {
  return { authorization: `Bearer ${token}` }
}

function expectInvalid(response: Awaited<ReturnType<typeof request>>) {
  expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: INVALID })
  expect(Object.keys(response.body)).toEqual(['error', 'error_description', 'state'])
  expect(response.headers['www-authenticate']).toBe(
    'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"',
  )
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
}

describe('GET /oauth/token/info', () => {
  test('a live token, by Bearer header or access_token parameter, in Doorkeeper’s field order', async () => {
    const token = await issue()
    const byHeader = await request('GET', '/oauth/token/info', { headers: bearer(token.access_token) })
    expect(byHeader.status).toBe(200)
    expect(byHeader.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(Object.keys(byHeader.body)).toEqual([
      'resource_owner_id',
      'scope',
      'expires_in',
      'application',
      'created_at',
      'scopes',
      'expires_in_seconds',
    ])
    expect(byHeader.body).toEqual({
      resource_owner_id: user.id,
      scope: ['api', 'read_user'],
      expires_in: expect.any(Number),
      application: { uid: app.clientId },
      created_at: token.created_at,
      scopes: ['api', 'read_user'],
      expires_in_seconds: byHeader.body.expires_in,
    })
    expect(byHeader.body.expires_in).toBeGreaterThanOrEqual(7199)
    expect(byHeader.body.expires_in).toBeLessThanOrEqual(7200)
    const byParam = await request('GET', `/oauth/token/info?access_token=${token.access_token}`)
    expect(byParam.body.application).toEqual({ uid: app.clientId })
  })

  test('expires_in counts down', async () => {
    const token = await issue()
    server.travel(3_600_000)
    try {
      const response = await request('GET', '/oauth/token/info', { headers: bearer(token.access_token) })
      expect(response.body.expires_in).toBeGreaterThanOrEqual(3599)
      expect(response.body.expires_in).toBeLessThanOrEqual(3600)
      expect(response.body.expires_in_seconds).toBe(response.body.expires_in)
    } finally {
      server.travel(-3_600_000)
    }
  })

  test('a token issued without a client shows a null application uid', async () => {
    const password = await request('POST', '/oauth/token', {
      form: true,
      body: { grant_type: 'password', username: user.username, password: 'password123' },
    })
    const response = await request('GET', '/oauth/token/info', { headers: bearer(password.body.access_token) })
    expect(response.body.application).toEqual({ uid: null })
  })

  test('missing, unknown, expired and revoked tokens are the same 401', async () => {
    expectInvalid(await request('GET', '/oauth/token/info'))
    expectInvalid(await request('GET', '/oauth/token/info', { headers: bearer('f'.repeat(64)) }))
    const pat = await createTestToken(server.database.db, user)
    expectInvalid(await request('GET', '/oauth/token/info', { headers: bearer(pat.value) }))

    const expiring = await issue()
    server.travel(7_200_000)
    try {
      expectInvalid(await request('GET', '/oauth/token/info', { headers: bearer(expiring.access_token) }))
    } finally {
      server.travel(-7_200_000)
    }

    const revoked = await issue()
    await request('POST', '/oauth/revoke', {
      form: true,
      body: { token: revoked.access_token, client_id: app.clientId, client_secret: app.secret },
    })
    expectInvalid(await request('GET', '/oauth/token/info', { headers: bearer(revoked.access_token) }))
  })
})

describe('OAuth tokens on the API', () => {
  test('Bearer header and access_token parameter both authenticate', async () => {
    const token = await issue()
    const byHeader = await request('GET', '/api/v4/user', { headers: bearer(token.access_token) })
    expect(byHeader.status).toBe(200)
    expect(byHeader.body.username).toBe(user.username)
    const byParam = await request('GET', `/api/v4/user?access_token=${token.access_token}`)
    expect(byParam.status).toBe(200)
    expect(byParam.body.id).toBe(user.id)
  })

  test('two hours after creation the token is expired', async () => {
    const token = await issue()
    server.travel(7_199_000)
    try {
      expect((await request('GET', '/api/v4/user', { headers: bearer(token.access_token) })).status).toBe(200)
      server.travel(1_000)
      const response = await request('GET', '/api/v4/user', { headers: bearer(token.access_token) })
      expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: EXPIRED })
      expect(response.headers['www-authenticate']).toBe(
        `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${EXPIRED.error_description}"`,
      )
    } finally {
      server.travel(-7_200_000)
    }
  })

  test('a revoked token is refused', async () => {
    const token = await issue()
    await request('POST', '/oauth/revoke', {
      form: true,
      body: { token: token.access_token, client_id: app.clientId, client_secret: app.secret },
    })
    const response = await request('GET', '/api/v4/user', { headers: bearer(token.access_token) })
    expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: REVOKED })
  })

  test('a read_user token reads but cannot write', async () => {
    const token = await issue('read_user')
    expect((await request('GET', '/api/v4/user', { headers: bearer(token.access_token) })).status).toBe(200)
    const write = await request('POST', '/api/v4/projects', { headers: bearer(token.access_token), body: { name: 'not-allowed' } })
    expect({ status: write.status, body: write.body }).toEqual({
      status: 403,
      body: {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: 'api',
      },
    })
  })

  test('an unknown Bearer value falls through to personal tokens, then is refused', async () => {
    const pat = await createTestToken(server.database.db, user)
    expect((await request('GET', '/api/v4/user', { headers: bearer(pat.value) })).status).toBe(200)
    const unknown = await request('GET', '/api/v4/user', { headers: bearer('f'.repeat(64)) })
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 401, body: { message: '401 Unauthorized' } })
  })

  test('using an OAuth token leaves the personal token of the same id untouched', async () => {
    // Make the newest OAuth token and the newest personal token share an id.
    let token = await issue()
    let pat = await createTestToken(server.database.db, user)
    for (let oauthId = await idOfLastToken(); oauthId !== pat.row.id; oauthId = await idOfLastToken()) {
      if (pat.row.id < oauthId) pat = await createTestToken(server.database.db, user)
      else token = await issue()
    }
    expect((await request('GET', '/api/v4/user', { headers: bearer(token.access_token) })).status).toBe(200)
    const row = await server.database.db
      .selectFrom('personal_access_tokens')
      .select(['last_used_at', 'last_used_ips'])
      .where('id', '=', pat.row.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ last_used_at: null, last_used_ips: '[]' })
  })
})

async function idOfLastToken(): Promise<number> {
  const row = await server.database.db
    .selectFrom('oauth_access_tokens')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow()
  return row.id
}
