import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../../core/caller.js'
import { digestToken } from '../../../core/secrets.js'
import { createTestUser } from '../../../testing/factories.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import {
  authorizationServer,
  createTestApplication,
  createTestGrant,
  disableProtectedPathThrottle,
  expectOAuthError,
  insecure,
  missing,
  REDIRECT_URI,
  type TestApplication,
} from '../token-fixtures.js'

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

const HEX64 = /^[0-9a-f]{64}$/

function post(body: Record<string, string>, headers: Record<string, string> = {}) {
  return request('POST', '/oauth/token', { form: true, body, headers })
}

/** A token pair from a code exchange, as a client holds it. */
async function tokenPair(application: TestApplication = app, scopes = 'api read_user') {
  const grant = await createTestGrant(server.database.db, application, user, { scopes })
  const body: Record<string, string> = {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: REDIRECT_URI,
    client_id: application.clientId,
  }
  if (application.row.confidential === 1) body.client_secret = application.secret
  const response = await post(body)
  expect(response.status).toBe(200)
  return { grant, accessToken: response.body.access_token as string, refreshToken: response.body.refresh_token as string }
}

function refresh(refreshToken: string, extra: Record<string, string> = {}, application: TestApplication = app) {
  return post({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: application.clientId,
    client_secret: application.secret,
    ...extra,
  })
}

async function getUser(accessToken: string) {
  return request('GET', '/api/v4/user', { headers: { authorization: `Bearer ${accessToken}` } })
}

const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }
const EXPIRED = { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' }

describe('refresh_token rotation', () => {
  test('an OAuth client library refreshes; the old pair stops working and the new one works', async () => {
    const pair = await tokenPair()
    const as = authorizationServer(server)
    const response = await oauth.refreshTokenGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretBasic(app.secret),
      pair.refreshToken,
      insecure,
    )
    const result = await oauth.processRefreshTokenResponse(as, { client_id: app.clientId }, response)
    expect(result.access_token).toMatch(HEX64)
    expect(result.refresh_token).toMatch(HEX64)
    expect(result.access_token).not.toBe(pair.accessToken)
    expect(result).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'api read_user' })

    expect((await getUser(result.access_token)).status).toBe(200)
    const old = await getUser(pair.accessToken)
    expect(old.status).toBe(401)
    expect(old.body).toEqual(REVOKED)
    expectOAuthError(await refresh(pair.refreshToken), 400, 'invalid_grant')
  })

  test('the exact response, and the new row keeps the code and points at the token it replaced', async () => {
    const pair = await tokenPair()
    const response = await refresh(pair.refreshToken)
    expect(response.status).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers.pragma).toBe('no-cache')
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(Object.keys(response.body)).toEqual(['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'created_at'])

    const db = server.database.db
    const old = await db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('token_digest', '=', digestToken(pair.accessToken))
      .executeTakeFirstOrThrow()
    const renewed = await db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('token_digest', '=', digestToken(response.body.access_token))
      .executeTakeFirstOrThrow()
    expect(old.revoked_at).not.toBeNull()
    expect(renewed).toMatchObject({
      application_id: app.row.id,
      resource_owner_id: user.id,
      grant_id: pair.grant.row.id,
      previous_token_id: old.id,
      refresh_token_digest: digestToken(response.body.refresh_token),
      expires_in: 7200,
      revoked_at: null,
    })
  })

  test('the refresh token outlives its access token', async () => {
    const pair = await tokenPair()
    server.travel(7_201_000)
    try {
      const expired = await getUser(pair.accessToken)
      expect(expired.status).toBe(401)
      expect(expired.body).toEqual(EXPIRED)
      const response = await refresh(pair.refreshToken)
      expect(response.status).toBe(200)
      expect((await getUser(response.body.access_token)).status).toBe(200)
    } finally {
      server.travel(-7_201_000)
    }
  })

  test('two refreshes with one token at once: exactly one succeeds, and its new pair works', async () => {
    const pair = await tokenPair()
    const responses = await Promise.all([1, 2, 3].map(() => refresh(pair.refreshToken)))
    const succeeded = responses.filter((response) => response.status === 200)
    expect(succeeded).toHaveLength(1)
    for (const response of responses.filter((r) => r.status !== 200)) expectOAuthError(response, 400, 'invalid_grant')
    const old = await server.database.db
      .selectFrom('oauth_access_tokens')
      .select('id')
      .where('token_digest', '=', digestToken(pair.accessToken))
      .executeTakeFirstOrThrow()
    const replacements = await server.database.db
      .selectFrom('oauth_access_tokens')
      .select('id')
      .where('previous_token_id', '=', old.id)
      .execute()
    expect(replacements).toHaveLength(1)
    expect((await getUser(succeeded[0].body.access_token)).status).toBe(200)
    expect((await refresh(succeeded[0].body.refresh_token)).status).toBe(200)
  })

  test('many chains refreshed at once all succeed, twice over', async () => {
    const pairs = await Promise.all(Array.from({ length: 12 }, () => tokenPair()))
    const first = await Promise.all(pairs.map((pair) => refresh(pair.refreshToken)))
    expect(first.map((response) => response.status)).toEqual(pairs.map(() => 200))
    const second = await Promise.all(first.map((response) => refresh(response.body.refresh_token)))
    expect(second.map((response) => response.status)).toEqual(pairs.map(() => 200))
    const accessTokens = new Set([...first, ...second].map((response) => response.body.access_token))
    expect(accessTokens.size).toBe(24)
    for (const response of second) expect((await getUser(response.body.access_token)).status).toBe(200)
    for (const response of first) expect((await getUser(response.body.access_token)).status).toBe(401)
  })

  test('a public client refreshes with its client_id alone', async () => {
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    const pair = await tokenPair(publicApp)
    const response = await post({ grant_type: 'refresh_token', refresh_token: pair.refreshToken, client_id: publicApp.clientId })
    expect(response.status).toBe(200)
  })
})

describe('refresh_token and redirect_uri (spec/README.md decided difference)', () => {
  test('the original redirect_uri is accepted', async () => {
    const pair = await tokenPair()
    expect((await refresh(pair.refreshToken, { redirect_uri: REDIRECT_URI })).status).toBe(200)
  })

  test('another redirect_uri is invalid_grant and leaves the pair as it was', async () => {
    const pair = await tokenPair()
    expectOAuthError(await refresh(pair.refreshToken, { redirect_uri: 'https://client.example/other' }), 400, 'invalid_grant')
    expect((await getUser(pair.accessToken)).status).toBe(200)
    expect((await refresh(pair.refreshToken)).status).toBe(200)
  })

  test('a PKCE client may send its code_verifier; it is not checked', async () => {
    const pair = await tokenPair()
    expect(
      (await refresh(pair.refreshToken, { code_verifier: oauth.generateRandomCodeVerifier(), redirect_uri: REDIRECT_URI })).status,
    ).toBe(200)
  })
})

describe('refresh_token refusals, in Doorkeeper order', () => {
  test('a missing refresh_token is invalid_request; an unknown one invalid_grant', async () => {
    expectOAuthError(
      await post({ grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.secret }),
      400,
      'invalid_request',
      missing('refresh_token'),
    )
    expectOAuthError(await refresh('0'.repeat(64)), 400, 'invalid_grant')
    // An unknown token is refused before the client is looked at.
    expectOAuthError(await refresh('0'.repeat(64), { client_secret: 'wrong' }), 400, 'invalid_grant')
  })

  test('wrong client credentials are invalid_client', async () => {
    const pair = await tokenPair()
    expectOAuthError(await refresh(pair.refreshToken, { client_secret: 'wrong' }), 401, 'invalid_client')
    expectOAuthError(await refresh(pair.refreshToken, { client_secret: '' }), 401, 'invalid_client')
    const basic = `Basic ${Buffer.from(`${app.clientId}:wrong`).toString('base64')}`
    expectOAuthError(
      await post({ grant_type: 'refresh_token', refresh_token: pair.refreshToken }, { authorization: basic }),
      401,
      'invalid_client',
    )
    expect((await refresh(pair.refreshToken)).status).toBe(200)
  })

  test('no client, or another client, is invalid_grant', async () => {
    const pair = await tokenPair()
    const other = await createTestApplication(server.database.db)
    expectOAuthError(await post({ grant_type: 'refresh_token', refresh_token: pair.refreshToken }), 400, 'invalid_grant')
    expectOAuthError(await refresh(pair.refreshToken, {}, other), 400, 'invalid_grant')
    expect((await refresh(pair.refreshToken)).status).toBe(200)
  })

  test('a scope must be among the granted ones; a narrower one is kept', async () => {
    const pair = await tokenPair()
    expectOAuthError(await refresh(pair.refreshToken, { scope: 'api sudo' }), 400, 'invalid_scope')
    expectOAuthError(await refresh(pair.refreshToken, { scope: 'read_user\tapi' }), 400, 'invalid_scope')
    const narrowed = await refresh(pair.refreshToken, { scope: 'read_user' })
    expect(narrowed.status).toBe(200)
    expect(narrowed.body.scope).toBe('read_user')
    const write = await request('POST', '/api/v4/projects', {
      headers: { authorization: `Bearer ${narrowed.body.access_token}` },
      body: { name: 'p' },
    })
    expect(write.status).toBe(403)
    expect(write.body.error).toBe('insufficient_scope')
    // A blank scope keeps the token's scopes.
    const kept = await refresh(narrowed.body.refresh_token, { scope: ' ' })
    expect(kept.body.scope).toBe('read_user')
  })

  test('a revoked token cannot be refreshed', async () => {
    const pair = await tokenPair()
    const revoked = await request('POST', '/oauth/revoke', {
      form: true,
      body: { token: pair.accessToken, client_id: app.clientId, client_secret: app.secret },
    })
    expect(revoked.status).toBe(200)
    expectOAuthError(await refresh(pair.refreshToken), 400, 'invalid_grant')
  })
})

describe('refresh_token with openid', () => {
  test('the refreshed response carries a new ID token, without a nonce', async () => {
    const pair = await tokenPair(app, 'openid read_user')
    const as = authorizationServer(server)
    const response = await oauth.refreshTokenGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretPost(app.secret),
      pair.refreshToken,
      insecure,
    )
    const result = await oauth.processRefreshTokenResponse(as, { client_id: app.clientId }, response)
    const claims = oauth.getValidatedIdTokenClaims(result)!
    expect(claims).toMatchObject({ iss: server.url, sub: String(user.id), aud: app.clientId })
    expect(claims.nonce).toBeUndefined()
  })
})
