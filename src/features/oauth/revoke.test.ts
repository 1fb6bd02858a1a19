import * as oauth from 'oauth4webapi'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import {
  authorizationServer,
  changeSettings,
  createTestApplication,
  createTestGrant,
  disableProtectedPathThrottle,
  insecure,
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
afterEach(() => changeSettings(server, { ropc_without_client_credentials: true }))

const REFUSED = { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' }
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' }

async function tokenPair(application: TestApplication = app) {
  const grant = await createTestGrant(server.database.db, application, user)
  const body: Record<string, string> = {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: REDIRECT_URI,
    client_id: application.clientId,
  }
  if (application.row.confidential === 1) body.client_secret = application.secret
  const response = await request('POST', '/oauth/token', { form: true, body })
  expect(response.status).toBe(200)
  return { accessToken: response.body.access_token as string, refreshToken: response.body.refresh_token as string }
}

function revoke(body: Record<string, string>, headers: Record<string, string> = {}) {
  return request('POST', '/oauth/revoke', { form: true, body, headers })
}

function withClient(application: TestApplication, token: string) {
  return { client_id: application.clientId, client_secret: application.secret, token }
}

async function apiStatus(accessToken: string) {
  return request('GET', '/api/v4/user', { headers: { authorization: `Bearer ${accessToken}` } })
}

function refresh(refreshToken: string, application: TestApplication = app) {
  return request('POST', '/oauth/token', {
    form: true,
    body: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: application.clientId, client_secret: application.secret },
  })
}

function expectSuccess(response: Awaited<ReturnType<typeof revoke>>) {
  expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: '{}' })
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
}

describe('POST /oauth/revoke', () => {
  test('an OAuth client library revokes an access token: the whole pair stops working', async () => {
    const pair = await tokenPair()
    const as = authorizationServer(server)
    const response = await oauth.revocationRequest(
      as,
      { client_id: app.clientId },
      oauth.ClientSecretBasic(app.secret),
      pair.accessToken,
      insecure,
    )
    await oauth.processRevocationResponse(response)
    const api = await apiStatus(pair.accessToken)
    expect(api.status).toBe(401)
    expect(api.body).toEqual(REVOKED)
    expect((await refresh(pair.refreshToken)).status).toBe(400)
  })

  test('revoking by the refresh token revokes the access token too', async () => {
    const pair = await tokenPair()
    expectSuccess(await revoke(withClient(app, pair.refreshToken)))
    expect((await apiStatus(pair.accessToken)).status).toBe(401)
    expect((await refresh(pair.refreshToken)).status).toBe(400)
  })

  test('unknown, missing, already revoked and expired tokens all answer 200 {}', async () => {
    expectSuccess(await revoke(withClient(app, 'f'.repeat(64))))
    expectSuccess(await revoke({ client_id: app.clientId, client_secret: app.secret }))
    const pair = await tokenPair()
    expectSuccess(await revoke(withClient(app, pair.accessToken)))
    expectSuccess(await revoke(withClient(app, pair.accessToken)))
    const expiring = await tokenPair()
    server.travel(7_201_000)
    try {
      expectSuccess(await revoke(withClient(app, expiring.accessToken)))
      // Its refresh token goes with it.
      expect((await refresh(expiring.refreshToken)).status).toBe(400)
    } finally {
      server.travel(-7_201_000)
    }
  })

  test('a confidential application’s token is revoked only by that application', async () => {
    const pair = await tokenPair()
    const other = await createTestApplication(server.database.db)
    for (const response of [
      await revoke(withClient(other, pair.accessToken)),
      await revoke({ token: pair.accessToken }),
      await revoke({ token: pair.accessToken, client_id: app.clientId }),
      await revoke({ ...withClient(app, pair.accessToken), client_secret: 'wrong' }),
    ]) {
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: REFUSED })
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
    }
    expect((await apiStatus(pair.accessToken)).status).toBe(200)
    expectSuccess(
      await revoke(
        { token: pair.accessToken },
        { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.secret}`).toString('base64')}` },
      ),
    )
    expect((await apiStatus(pair.accessToken)).status).toBe(401)
  })

  test('a public application’s token, or one issued without a client, is revoked by whoever holds it', async () => {
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    const pair = await tokenPair(publicApp)
    expectSuccess(await revoke({ token: pair.accessToken }))
    expect((await apiStatus(pair.accessToken)).status).toBe(401)

    const password = await request('POST', '/oauth/token', {
      form: true,
      body: { grant_type: 'password', username: user.username, password: 'password123' },
    })
    expect(password.status).toBe(200)
    expectSuccess(await revoke({ token: password.body.access_token }))
    expect((await apiStatus(password.body.access_token)).status).toBe(401)
  })

  test('with ropc_without_client_credentials off, a client must authenticate', async () => {
    await changeSettings(server, { ropc_without_client_credentials: false })
    const publicApp = await createTestApplication(server.database.db, { confidential: false })
    const pair = await tokenPair(publicApp)
    const refused = await revoke({ token: pair.accessToken })
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: REFUSED })
    const unknown = await revoke({ token: 'f'.repeat(64) })
    expect(unknown.status).toBe(403)
    expectSuccess(await revoke({ token: pair.accessToken, client_id: publicApp.clientId }))
    expect((await apiStatus(pair.accessToken)).status).toBe(401)
  })
})
