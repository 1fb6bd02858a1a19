import * as oauth from 'oauth4webapi'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../../core/caller.js'
import { digestToken } from '../../../core/secrets.js'
import { createTestUser } from '../../../testing/factories.js'
import { client } from '../../../testing/http.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import {
  authorizationServer,
  changeSettings,
  createTestApplication,
  disableProtectedPathThrottle,
  expectOAuthError,
  insecure,
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
  user = await createTestUser(server.database.db, { password: 'correct-horse-battery' })
  app = await createTestApplication(server.database.db, { scopes: 'api read_user openid' })
})
afterAll(() => server.close())
afterEach(() =>
  changeSettings(server, {
    ropc_without_client_credentials: true,
    password_authentication_enabled_for_git: true,
    max_login_attempts: null,
  }),
)

const HEX64 = /^[0-9a-f]{64}$/

function post(body: Record<string, string>, headers: Record<string, string> = {}) {
  return request('POST', '/oauth/token', { form: true, body, headers })
}

function passwordGrant(extra: Record<string, string> = {}, who: User = user, password = 'correct-horse-battery') {
  return post({ grant_type: 'password', username: who.username, password, ...extra })
}

function basic(application: TestApplication, secret = application.secret): string {
  return `Basic ${Buffer.from(`${application.clientId}:${secret}`).toString('base64')}`
}

describe('password grant', () => {
  test('without a client: an api token, no refresh token (spec: Token response)', async () => {
    const response = await passwordGrant()
    expect(response.status).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers.pragma).toBe('no-cache')
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(Object.keys(response.body)).toEqual(['access_token', 'token_type', 'expires_in', 'scope', 'created_at'])
    expect(response.body).toMatchObject({
      access_token: expect.stringMatching(HEX64),
      token_type: 'bearer',
      expires_in: 7200,
      scope: 'api',
    })
    const row = await server.database.db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('token_digest', '=', digestToken(response.body.access_token))
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      application_id: null,
      resource_owner_id: user.id,
      refresh_token_digest: null,
      grant_id: null,
      scopes: 'api',
    })
    const me = await request('GET', '/api/v4/user', { headers: { authorization: `Bearer ${response.body.access_token}` } })
    expect(me.status).toBe(200)
    expect(me.body.username).toBe(user.username)
  })

  test('an OAuth client library with HTTP Basic client authentication', async () => {
    const as = authorizationServer(server)
    const response = await oauth.genericTokenEndpointRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretBasic(app.secret),
      'password',
      { username: user.email.toUpperCase(), password: 'correct-horse-battery', scope: 'read_user' },
      insecure,
    )
    const result = await oauth.processGenericTokenEndpointResponse(as, { client_id: app.clientId }, response)
    expect(result).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: 'read_user' })
    expect(result.refresh_token).toBeUndefined()
    const row = await server.database.db
      .selectFrom('oauth_access_tokens')
      .select('application_id')
      .where('token_digest', '=', digestToken(result.access_token))
      .executeTakeFirstOrThrow()
    expect(row.application_id).toBe(app.row.id)
  })

  test('client credentials in the body; a public client by its client_id alone', async () => {
    expect((await passwordGrant({ client_id: app.clientId, client_secret: app.secret })).status).toBe(200)
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    expect((await passwordGrant({ client_id: publicApp.clientId })).status).toBe(200)
  })

  test('with openid and a client, an ID token carrying the nonce', async () => {
    const response = await passwordGrant({ client_id: app.clientId, client_secret: app.secret, scope: 'openid api', nonce: 'n-0S6_WzA2Mj' })
    expect(response.status).toBe(200)
    expect(Object.keys(response.body)).toEqual(['access_token', 'token_type', 'expires_in', 'scope', 'created_at', 'id_token'])
    const claims = JSON.parse(Buffer.from(response.body.id_token.split('.')[1], 'base64url').toString('utf8'))
    expect(claims).toMatchObject({ iss: server.url, sub: String(user.id), aud: app.clientId, nonce: 'n-0S6_WzA2Mj' })
  })
})

describe('password grant refusals', () => {
  test('every refusal of the user is the same invalid_grant', async () => {
    const blocked = await createTestUser(server.database.db, { password: 'correct-horse-battery', state: 'blocked' })
    const twoFactor = await createTestUser(server.database.db, { password: 'correct-horse-battery', two_factor_enabled: 1 })
    expectOAuthError(
      await post({ grant_type: 'password', username: 'nobody-here', password: 'correct-horse-battery' }),
      400,
      'invalid_grant',
    )
    expectOAuthError(await passwordGrant({}, user, 'wrong-password'), 400, 'invalid_grant')
    expectOAuthError(await post({ grant_type: 'password', username: user.username }), 400, 'invalid_grant')
    expectOAuthError(await post({ grant_type: 'password', password: 'correct-horse-battery' }), 400, 'invalid_grant')
    expectOAuthError(await passwordGrant({}, blocked), 400, 'invalid_grant')
    expectOAuthError(await passwordGrant({}, twoFactor), 400, 'invalid_grant')
  })

  test('nobody gets a token while password authentication for Git is off', async () => {
    await changeSettings(server, { password_authentication_enabled_for_git: false })
    expectOAuthError(await passwordGrant(), 400, 'invalid_grant')
  })

  test('wrong passwords count towards the account lock', async () => {
    const victim = await createTestUser(server.database.db, { password: 'correct-horse-battery' })
    await changeSettings(server, { max_login_attempts: 3 })
    for (let i = 0; i < 3; i++) expectOAuthError(await passwordGrant({}, victim, 'wrong-password'), 400, 'invalid_grant')
    const row = await server.database.db
      .selectFrom('users')
      .select(['failed_attempts', 'locked_at'])
      .where('id', '=', victim.id)
      .executeTakeFirstOrThrow()
    expect(row.failed_attempts).toBe(3)
    expect(row.locked_at).not.toBeNull()
    expectOAuthError(await passwordGrant({}, victim), 400, 'invalid_grant')
  })

  test('wrong client credentials are invalid_client, even with a right password', async () => {
    expectOAuthError(await passwordGrant({ client_id: app.clientId, client_secret: 'wrong' }), 401, 'invalid_client')
    const wrongBasic = await post(
      { grant_type: 'password', username: user.username, password: 'correct-horse-battery' },
      { authorization: basic(app, 'wrong') },
    )
    expectOAuthError(wrongBasic, 401, 'invalid_client')
  })

  test('a confidential client without its secret, or an unknown client, is invalid_client', async () => {
    expectOAuthError(await passwordGrant({ client_id: app.clientId }), 401, 'invalid_client')
    expectOAuthError(await passwordGrant({ client_id: 'unknown' }), 401, 'invalid_client')
  })

  test('client credentials are required when ropc_without_client_credentials is off', async () => {
    await changeSettings(server, { ropc_without_client_credentials: false })
    expectOAuthError(await passwordGrant(), 401, 'invalid_client')
    expect(
      (await post({ grant_type: 'password', username: user.username, password: 'correct-horse-battery' }, { authorization: basic(app) }))
        .status,
    ).toBe(200)
  })

  test('scopes must be known, and registered for the client when there is one', async () => {
    expectOAuthError(await passwordGrant({ scope: 'api unknown_scope' }), 400, 'invalid_scope')
    expect((await passwordGrant({ scope: 'sudo read_api' })).body.scope).toBe('sudo read_api')
    const readOnly = await createTestApplication(server.database.db, { scopes: 'read_user' })
    expectOAuthError(
      await passwordGrant({ client_id: readOnly.clientId, client_secret: readOnly.secret, scope: 'api' }),
      400,
      'invalid_scope',
    )
    // The default scope `api` is not among this client's either.
    expectOAuthError(await passwordGrant({ client_id: readOnly.clientId, client_secret: readOnly.secret }), 400, 'invalid_scope')
    expect((await passwordGrant({ client_id: readOnly.clientId, client_secret: readOnly.secret, scope: 'read_user' })).status).toBe(200)
  })
})
