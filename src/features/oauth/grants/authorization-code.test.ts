import * as oauth from 'oauth4webapi'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../../core/caller.js'
import { OAUTH_ERROR_DESCRIPTIONS } from '../../../core/errors.js'
import { digestToken } from '../../../core/secrets.js'
import { createTestUser } from '../../../testing/factories.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { createTestSession } from '../../../testing/sessions.js'
import {
  authorizationServer,
  callbackParameters,
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

function exchange(body: Record<string, string>, headers: Record<string, string> = {}) {
  return request('POST', '/oauth/token', { form: true, body, headers })
}

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`
}

async function getUser(accessToken: string) {
  return request('GET', '/api/v4/user', { headers: { authorization: `Bearer ${accessToken}` } })
}

/** The error the client library reports for a refused token request: Doorkeeper's WWW-Authenticate challenge. */
function refusalOf(error: unknown) {
  expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError)
  const { status, cause } = error as oauth.WWWAuthenticateChallengeError
  expect(cause.map((challenge) => challenge.scheme)).toEqual(['bearer'])
  const { error: code, error_description: description } = cause[0].parameters
  return { status, error: code, description }
}

describe('authorization_code with an OAuth client library', () => {
  test('a confidential client posting its secret gets a token that works on the API', async () => {
    const grant = await createTestGrant(server.database.db, app, user, { scopes: 'api read_user' })
    const as = authorizationServer(server)
    const params = callbackParameters(server, app.clientId, grant.code)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretPost(app.secret),
      params,
      REDIRECT_URI,
      oauth.nopkce,
      insecure,
    )
    const result = await oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId }, response)
    expect(result.access_token).toMatch(HEX64)
    expect(result.refresh_token).toMatch(HEX64)
    expect(result).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'api read_user' })
    const me = await getUser(result.access_token)
    expect(me.status).toBe(200)
    expect(me.body.id).toBe(user.id)
  })

  test('PKCE with HTTP Basic client authentication', async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const grant = await createTestGrant(server.database.db, app, user, { codeVerifier: verifier })
    const as = authorizationServer(server)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretBasic(app.secret),
      callbackParameters(server, app.clientId, grant.code),
      REDIRECT_URI,
      verifier,
      insecure,
    )
    const result = await oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId }, response)
    expect(result.scope).toBe('api')
    expect((await getUser(result.access_token)).status).toBe(200)
  })

  test('a public client authenticates with its client_id alone and proves the code with PKCE', async () => {
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    const verifier = oauth.generateRandomCodeVerifier()
    const grant = await createTestGrant(server.database.db, publicApp, user, { codeVerifier: verifier })
    const as = authorizationServer(server)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: publicApp.clientId },
      oauth.None(),
      callbackParameters(server, publicApp.clientId, grant.code),
      REDIRECT_URI,
      verifier,
      insecure,
    )
    const result = await oauth.processAuthorizationCodeResponse(as, { client_id: publicApp.clientId }, response)
    expect((await getUser(result.access_token)).status).toBe(200)
  })

  test('a confidential client using PKCE still authenticates: without its secret it is invalid_client', async () => {
    const verifier = oauth.generateRandomCodeVerifier()
    const grant = await createTestGrant(server.database.db, app, user, { codeVerifier: verifier })
    const as = authorizationServer(server)
    const withoutSecret = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.None(),
      callbackParameters(server, app.clientId, grant.code),
      REDIRECT_URI,
      verifier,
      insecure,
    )
    const refused = await oauth
      .processAuthorizationCodeResponse(as, { client_id: app.clientId }, withoutSecret)
      .catch((error: unknown) => error)
    expect(refusalOf(refused)).toEqual({ status: 401, error: 'invalid_client', description: OAUTH_ERROR_DESCRIPTIONS.invalid_client })
    // The refusal did not use the code: with the secret it works.
    const withSecret = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretPost(app.secret),
      callbackParameters(server, app.clientId, grant.code),
      REDIRECT_URI,
      verifier,
      insecure,
    )
    const result = await oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId }, withSecret)
    expect((await getUser(result.access_token)).status).toBe(200)
  })

  test('a verifier that is not 43 to 128 unreserved characters is invalid_grant, even when it matches the challenge', async () => {
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    const as = authorizationServer(server)
    const exchangeWith = async (verifier: string) => {
      const grant = await createTestGrant(server.database.db, publicApp, user, { codeVerifier: verifier })
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        { client_id: publicApp.clientId },
        oauth.None(),
        callbackParameters(server, publicApp.clientId, grant.code),
        REDIRECT_URI,
        verifier,
        insecure,
      )
      const result = await oauth
        .processAuthorizationCodeResponse(as, { client_id: publicApp.clientId }, response)
        .catch((error: unknown) => error)
      return { grant, result }
    }
    for (const verifier of ['a'.repeat(42), 'a'.repeat(129), `!@#$${'a'.repeat(40)}`, `${'a'.repeat(42)} `, `${'a'.repeat(42)}é`]) {
      const { grant, result } = await exchangeWith(verifier)
      expect(refusalOf(result)).toEqual({ status: 400, error: 'invalid_grant', description: OAUTH_ERROR_DESCRIPTIONS.invalid_grant })
      // Refused before the code was used: nothing changed.
      const row = await server.database.db
        .selectFrom('oauth_access_grants')
        .select('revoked_at')
        .where('id', '=', grant.row.id)
        .executeTakeFirstOrThrow()
      expect(row.revoked_at).toBeNull()
      const tokens = await server.database.db.selectFrom('oauth_access_tokens').select('id').where('grant_id', '=', grant.row.id).execute()
      expect(tokens).toEqual([])
    }
    for (const verifier of ['A'.repeat(43), `${'Az09-._~'.repeat(16)}`]) {
      const { result } = await exchangeWith(verifier)
      expect(result).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'api' })
    }
  })

  test('a grant with openid gets an ID token carrying the nonce of the authorization request', async () => {
    const nonce = oauth.generateRandomNonce()
    const grant = await createTestGrant(server.database.db, app, user, { scopes: 'openid api', nonce })
    const as = authorizationServer(server)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretPost(app.secret),
      callbackParameters(server, app.clientId, grant.code),
      REDIRECT_URI,
      oauth.nopkce,
      insecure,
    )
    const result = await oauth.processAuthorizationCodeResponse(as, { client_id: app.clientId }, response, { expectedNonce: nonce })
    const claims = oauth.getValidatedIdTokenClaims(result)!
    expect(claims).toMatchObject({ iss: server.url, sub: String(user.id), aud: app.clientId, nonce })
    expect(Object.keys(result)).toEqual(['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'created_at', 'id_token'])
  })
})

describe('authorization_code over raw HTTP', () => {
  test('the exact response: fields in order, no caching, only digests stored', async () => {
    const grant = await createTestGrant(server.database.db, app, user, { scopes: 'api read_user' })
    const before = Math.floor(Date.now() / 1000)
    const response = await exchange({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: app.clientId,
      client_secret: app.secret,
    })
    expect(response.status).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers.pragma).toBe('no-cache')
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(Object.keys(response.body)).toEqual(['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'created_at'])
    expect(response.body).toEqual({
      access_token: expect.stringMatching(HEX64),
      token_type: 'bearer',
      expires_in: 7200,
      refresh_token: expect.stringMatching(HEX64),
      scope: 'api read_user',
      created_at: expect.any(Number),
    })
    expect(response.body.created_at).toBeGreaterThanOrEqual(before)
    expect(response.body.created_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000))

    const rows = await server.database.db.selectFrom('oauth_access_tokens').selectAll().where('grant_id', '=', grant.row.id).execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      application_id: app.row.id,
      resource_owner_id: user.id,
      token_digest: digestToken(response.body.access_token),
      refresh_token_digest: digestToken(response.body.refresh_token),
      scopes: 'api read_user',
      expires_in: 7200,
      previous_token_id: null,
      revoked_at: null,
    })
    const grantRow = await server.database.db
      .selectFrom('oauth_access_grants')
      .selectAll()
      .where('id', '=', grant.row.id)
      .executeTakeFirstOrThrow()
    expect(grantRow.revoked_at).not.toBeNull()
  })

  test('a JSON body is read like a form', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    const response = await request('POST', '/oauth/token', {
      body: {
        grant_type: 'authorization_code',
        code: grant.code,
        redirect_uri: REDIRECT_URI,
        client_id: app.clientId,
        client_secret: app.secret,
      },
    })
    expect(response.status).toBe(200)
    expect(response.body.scope).toBe('api')
  })

  test('client credentials in HTTP Basic, form-encoded as RFC 6749 §2.3.1 asks', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    const response = await exchange(
      { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI },
      { authorization: basic(encodeURIComponent(app.clientId), encodeURIComponent(app.secret)) },
    )
    expect(response.status).toBe(200)
  })
})

describe('authorization_code refusals, in Doorkeeper order', () => {
  const base = () => ({ grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, client_id: app.clientId, client_secret: app.secret })

  test('missing grant_type is invalid_request; an unknown or unsupported one is unsupported_grant_type', async () => {
    expectOAuthError(await exchange({ code: 'x' }), 400, 'invalid_request', missing('grant_type'))
    expectOAuthError(
      await exchange({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.secret }),
      400,
      'unsupported_grant_type',
    )
    expectOAuthError(await exchange({ grant_type: 'implicit' }), 400, 'unsupported_grant_type')
    expectOAuthError(await exchange({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code' }), 400, 'unsupported_grant_type')
  })

  test('a missing redirect_uri is invalid_request, before the client is checked', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    expectOAuthError(
      await exchange({ grant_type: 'authorization_code', code: grant.code, client_id: app.clientId, client_secret: app.secret }),
      400,
      'invalid_request',
      missing('redirect_uri'),
    )
    expectOAuthError(
      await exchange({ grant_type: 'authorization_code', code: grant.code }),
      400,
      'invalid_request',
      missing('redirect_uri'),
    )
  })

  test('a PKCE code without code_verifier is invalid_request, even from an unauthenticated client', async () => {
    const grant = await createTestGrant(server.database.db, app, user, { codeVerifier: oauth.generateRandomCodeVerifier() })
    expectOAuthError(await exchange({ ...base(), code: grant.code }), 400, 'invalid_request', missing('code_verifier'))
    expectOAuthError(
      await exchange({ ...base(), code: grant.code, client_secret: 'wrong' }),
      400,
      'invalid_request',
      missing('code_verifier'),
    )
  })

  test('client authentication failures are invalid_client with 401', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    expectOAuthError(await exchange({ ...base(), code: grant.code, client_secret: 'wrong' }), 401, 'invalid_client')
    // A confidential client always needs its secret, PKCE or not.
    expectOAuthError(await exchange({ ...base(), code: grant.code, client_secret: '' }), 401, 'invalid_client')
    expectOAuthError(await exchange({ ...base(), code: grant.code, client_id: 'unknown' }), 401, 'invalid_client')
    expectOAuthError(
      await exchange({ grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code: grant.code }),
      401,
      'invalid_client',
    )
    expectOAuthError(
      await exchange(
        { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code: grant.code },
        { authorization: basic(app.clientId, 'wrong') },
      ),
      401,
      'invalid_client',
    )
    // None of these used the code.
    expect((await exchange({ ...base(), code: grant.code })).status).toBe(200)
  })

  test('a public client that sends a wrong secret is refused', async () => {
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    const grant = await createTestGrant(server.database.db, publicApp, user)
    const body = { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code: grant.code, client_id: publicApp.clientId }
    expectOAuthError(await exchange({ ...body, client_secret: 'wrong' }), 401, 'invalid_client')
    expect((await exchange(body)).status).toBe(200)
  })

  test('an unknown code, or a code of another application, is invalid_grant', async () => {
    const other = await createTestApplication(server.database.db)
    const grant = await createTestGrant(server.database.db, other, user)
    expectOAuthError(await exchange({ ...base(), code: 'f'.repeat(64) }), 400, 'invalid_grant')
    expectOAuthError(await exchange({ ...base() }), 400, 'invalid_grant')
    expectOAuthError(await exchange({ ...base(), code: grant.code }), 400, 'invalid_grant')
  })

  test('a redirect_uri other than the authorization request’s is invalid_grant', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    expectOAuthError(await exchange({ ...base(), code: grant.code, redirect_uri: 'https://client.example/other' }), 400, 'invalid_grant')
    expectOAuthError(await exchange({ ...base(), code: grant.code, redirect_uri: `${REDIRECT_URI}/` }), 400, 'invalid_grant')
  })

  test('PKCE: a wrong verifier, or a verifier for a code without challenge, is invalid_grant', async () => {
    const withChallenge = await createTestGrant(server.database.db, app, user, { codeVerifier: oauth.generateRandomCodeVerifier() })
    expectOAuthError(
      await exchange({ ...base(), code: withChallenge.code, code_verifier: oauth.generateRandomCodeVerifier() }),
      400,
      'invalid_grant',
    )
    const withoutChallenge = await createTestGrant(server.database.db, app, user)
    expectOAuthError(
      await exchange({ ...base(), code: withoutChallenge.code, code_verifier: oauth.generateRandomCodeVerifier() }),
      400,
      'invalid_grant',
    )
  })

  test('a code expires 600 seconds after it was issued', async () => {
    const fresh = await createTestGrant(server.database.db, app, user)
    const stale = await createTestGrant(server.database.db, app, user)
    server.travel(599_000)
    try {
      expect((await exchange({ ...base(), code: fresh.code })).status).toBe(200)
      server.travel(1_000)
      expectOAuthError(await exchange({ ...base(), code: stale.code }), 400, 'invalid_grant')
    } finally {
      server.travel(-600_000)
    }
  })

  test('a code used twice is invalid_grant and revokes every token issued from it, refreshed ones too', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    const first = await exchange({ ...base(), code: grant.code })
    expect(first.status).toBe(200)
    const refreshed = await exchange({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: app.clientId,
      client_secret: app.secret,
    })
    expect(refreshed.status).toBe(200)
    expect((await getUser(refreshed.body.access_token)).status).toBe(200)

    expectOAuthError(await exchange({ ...base(), code: grant.code }), 400, 'invalid_grant')
    const afterReuse = await getUser(refreshed.body.access_token)
    expect(afterReuse.status).toBe(401)
    expect(afterReuse.body).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    })
    expectOAuthError(
      await exchange({
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token,
        client_id: app.clientId,
        client_secret: app.secret,
      }),
      400,
      'invalid_grant',
    )
  })

  test('two exchanges of one code at once: at most one token survives', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    const responses = await Promise.all([1, 2, 3].map(() => exchange({ ...base(), code: grant.code })))
    const issued = responses.filter((response) => response.status === 200)
    expect(issued.length).toBeLessThanOrEqual(1)
    for (const response of responses.filter((r) => r.status !== 200)) expectOAuthError(response, 400, 'invalid_grant')
    const live = await server.database.db
      .selectFrom('oauth_access_tokens')
      .select('id')
      .where('grant_id', '=', grant.row.id)
      .where('revoked_at', 'is', null)
      .execute()
    expect(live).toHaveLength(0)
  })
})

describe('a code from the authorization endpoint', () => {
  test('approved on the consent page, exchanged with PKCE by an OAuth client library', async () => {
    const session = await createTestSession(server, user)
    const as = authorizationServer(server)
    const oauthClient = { client_id: app.clientId }
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const nonce = oauth.generateRandomNonce()
    const authorization = {
      client_id: app.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid read_user',
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }
    const consent = await request('GET', `/oauth/authorize?${new URLSearchParams(authorization)}`, { headers: { cookie: session.cookie } })
    expect(consent.status).toBe(200)
    const approved = await request('POST', '/oauth/authorize', {
      form: true,
      headers: { cookie: session.cookie },
      body: { authenticity_token: session.csrfToken, ...authorization },
    })
    expect(approved.status).toBe(302)
    const params = oauth.validateAuthResponse(as, oauthClient, new URL(approved.headers.location), state)
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      oauthClient,
      oauth.ClientSecretPost(app.secret),
      params,
      REDIRECT_URI,
      verifier,
      insecure,
    )
    const result = await oauth.processAuthorizationCodeResponse(as, oauthClient, response, { expectedNonce: nonce })
    expect(result.scope).toBe('openid read_user')
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ sub: String(user.id), aud: app.clientId, nonce })
    const info = await request('GET', '/oauth/token/info', { headers: { authorization: `Bearer ${result.access_token}` } })
    expect(info.body).toMatchObject({ resource_owner_id: user.id, scope: ['openid', 'read_user'], application: { uid: app.clientId } })
  })
})
