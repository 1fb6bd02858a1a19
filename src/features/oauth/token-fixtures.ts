import { createHash, randomBytes } from 'node:crypto'
import * as oauth from 'oauth4webapi'
import { expect } from 'vitest'
import type { User } from '../../core/caller.js'
import { OAUTH_ERROR_DESCRIPTIONS, type OAuthErrorCode } from '../../core/errors.js'
import { digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { OAuthGrantRow } from '../../db/schema.js'
import { client, type TestResponse } from '../../testing/http.js'
import type { TestServer } from '../../testing/server.js'
import { createTestApplication as createApplicationForTests, type TestApplication } from '../applications/testing.js'
import { insertGrant } from './store.js'

// Test data for the token endpoints; imported only by tests.

export const REDIRECT_URI = 'https://client.example/callback'

export type { TestApplication }

/** An OAuth application (confidential unless told) with a known secret, redirecting to REDIRECT_URI unless told. */
export function createTestApplication(
  db: Db,
  options: { confidential?: boolean; scopes?: string; redirectUri?: string } = {},
): Promise<TestApplication> {
  return createApplicationForTests(db, { ...options, redirectUri: options.redirectUri ?? REDIRECT_URI })
}

export interface TestGrant {
  row: OAuthGrantRow
  code: string
}

/** An authorization code as GET /oauth/authorize issues it (digest stored, 10 minutes), optionally with PKCE. */
export async function createTestGrant(
  db: Db,
  application: TestApplication,
  user: Pick<User, 'id'>,
  options: { scopes?: string; redirectUri?: string; codeVerifier?: string; nonce?: string; createdAt?: Date; expiresIn?: number } = {},
): Promise<TestGrant> {
  const code = randomBytes(32).toString('hex')
  const row = await insertGrant(db, {
    application_id: application.row.id,
    resource_owner_id: user.id,
    code_digest: digestToken(code),
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    scopes: options.scopes ?? 'api',
    code_challenge: options.codeVerifier === undefined ? null : createHash('sha256').update(options.codeVerifier).digest('base64url'),
    code_challenge_method: options.codeVerifier === undefined ? null : 'S256',
    nonce: options.nonce ?? null,
    expires_in: options.expiresIn ?? 600,
    created_at: (options.createdAt ?? new Date()).toISOString(),
  })
  return { row, code }
}

/** Turns off the protected-paths throttle, for tests that POST to /oauth/token more than ten times a minute. */
export async function disableProtectedPathThrottle(server: TestServer) {
  await changeSettings(server, { throttle_protected_paths_enabled: false })
}

/** Changes instance settings through the API, as an administrator would. */
export async function changeSettings(server: TestServer, settings: Record<string, unknown>) {
  const response = await client(server.url)('PUT', '/api/v4/application/settings', { token: server.rootToken, body: settings })
  if (response.status !== 200) throw new Error(`settings update failed: ${response.status} ${response.text}`)
}

/** svc as oauth4webapi sees it, over plain HTTP. */
export function authorizationServer(server: TestServer): oauth.AuthorizationServer {
  return {
    issuer: server.url,
    authorization_endpoint: `${server.url}/oauth/authorize`,
    token_endpoint: `${server.url}/oauth/token`,
    revocation_endpoint: `${server.url}/oauth/revoke`,
  }
}

export const insecure = { [oauth.allowInsecureRequests]: true } as const

/** The callback parameters a client would read from the redirect to it. */
export function callbackParameters(server: TestServer, clientId: string, code: string): URLSearchParams {
  const state = oauth.generateRandomState()
  const url = new URL(`${REDIRECT_URI}?code=${code}&state=${state}`)
  return oauth.validateAuthResponse(authorizationServer(server), { client_id: clientId }, url, state)
}

/** Doorkeeper's text for a missing parameter. */
export function missing(name: string): string {
  return `Missing required parameter: ${name}.`
}

/** Asserts Doorkeeper's error response: status, body, and the headers it always sends. */
export function expectOAuthError(
  response: TestResponse,
  status: number,
  code: OAuthErrorCode,
  description: string = OAUTH_ERROR_DESCRIPTIONS[code],
) {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: { error: code, error_description: description } })
  expect(response.headers['www-authenticate']).toBe(`Bearer realm="Doorkeeper", error="${code}", error_description="${description}"`)
  expect(response.headers['cache-control']).toBe('no-store, no-cache')
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
}
