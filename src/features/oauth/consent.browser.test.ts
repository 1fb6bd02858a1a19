import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as oauth from 'oauth4webapi'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { digestToken } from '../../core/secrets.js'
import type { OAuthApplicationRow } from '../../db/schema.js'
import { closeBrowser, launchBrowser } from '../../testing/browser.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { insertApplication } from '../applications/store.js'

/** The real browser flow: sign in, consent, land on the client's redirect URI, exchange the code, call the API. */

const PASSWORD = 'correct horse battery staple'

let server: TestServer
let browser: Browser
let context: BrowserContext
let page: Page
let callbackServer: Server
let callbackUrl: string
let user: User

/** The client's redirect target: a tiny page, so the browser really lands there. */
async function startCallbackServer(): Promise<Server> {
  const callback = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end('<!DOCTYPE html><title>Client</title><p>Back at the client.</p>')
  })
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
  return callback
}

async function createApplication(name: string, confidential: boolean): Promise<{ application: OAuthApplicationRow; secret: string }> {
  const secret = randomBytes(32).toString('hex')
  const at = new Date().toISOString()
  const application = await insertApplication(server.database.db, {
    uid: randomBytes(32).toString('hex'),
    secret_digest: digestToken(secret),
    name,
    redirect_uri: callbackUrl,
    scopes: 'api read_user openid',
    confidential: confidential ? 1 : 0,
    trusted: 0,
    owner_id: null,
    created_at: at,
    updated_at: at,
  })
  return { application, secret }
}

function authorizationServer(): oauth.AuthorizationServer {
  return {
    issuer: server.url,
    authorization_endpoint: `${server.url}/oauth/authorize`,
    token_endpoint: `${server.url}/oauth/token`,
  }
}

interface Flow {
  url: URL
  state: string
  codeVerifier: string
}

async function authorizationRequest(client: oauth.Client, scope: string): Promise<Flow> {
  const codeVerifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(authorizationServer().authorization_endpoint!)
  url.searchParams.set('client_id', client.client_id)
  url.searchParams.set('redirect_uri', callbackUrl)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('scope', scope)
  url.searchParams.set('state', state)
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier))
  url.searchParams.set('code_challenge_method', 'S256')
  return { url, state, codeVerifier }
}

/** Clicks a button and waits until the browser is back at the client. */
async function landOnCallback(buttonName: string | RegExp): Promise<URL> {
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(`${callbackUrl}?`)),
    page.getByRole('button', { name: buttonName }).click(),
  ])
  return new URL(page.url())
}

async function exchange(client: oauth.Client, auth: oauth.ClientAuth, flow: Flow, callback: URL) {
  const as = authorizationServer()
  const params = oauth.validateAuthResponse(as, client, callback, flow.state)
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, callbackUrl, flow.codeVerifier, {
    [oauth.allowInsecureRequests]: true,
  })
  return oauth.processAuthorizationCodeResponse(as, client, response)
}

async function currentUser(accessToken: string) {
  const response = await fetch(`${server.url}/api/v4/user`, { headers: { authorization: `Bearer ${accessToken}` } })
  return { status: response.status, body: (await response.json()) as { username: string } }
}

beforeAll(async () => {
  server = await startTestServer()
  callbackServer = await startCallbackServer()
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`
  user = await createTestUser(server.database.db, { username: 'dora', name: 'Dora Explorer', password: PASSWORD })
  browser = await launchBrowser()
  context = await browser.newContext()
  page = await context.newPage()
}, 60_000)

afterAll(async () => {
  await closeBrowser(browser)
  await new Promise((resolve) => callbackServer?.close(resolve))
  await server?.close()
})

describe('authorization code flow in a browser', () => {
  test('a confidential client with PKCE: sign in, approve, exchange the code, call the API', async () => {
    const { application, secret } = await createApplication('Explorer Map', true)
    const client: oauth.Client = { client_id: application.uid }
    const flow = await authorizationRequest(client, 'api read_user')

    await page.goto(flow.url.href)
    expect(new URL(page.url()).pathname).toBe('/users/sign_in')
    await page.locator('#user_login').fill(user.username)
    await page.locator('#user_password').fill(PASSWORD)
    await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.locator('#user_password').press('Enter')])

    await expect.poll(() => page.locator('h1').textContent()).toBe('Explorer Map is requesting access to your account on svc.')
    expect(await page.locator('.signed-in-as').textContent()).toContain('Dora Explorer')
    expect(await page.locator('li.scope').evaluateAll((items) => items.map((item) => item.getAttribute('data-scope')))).toEqual([
      'api',
      'read_user',
    ])

    const callback = await landOnCallback('Authorize Explorer Map')
    expect(callback.searchParams.get('state')).toBe(flow.state)
    expect(callback.searchParams.get('code')).toMatch(/^[0-9a-f]{64}$/)
    expect(await page.locator('p').textContent()).toBe('Back at the client.')

    const tokens = await exchange(client, oauth.ClientSecretPost(secret), flow, callback)
    expect(tokens.token_type.toLowerCase()).toBe('bearer')
    expect(tokens.scope).toBe('api read_user')
    const me = await currentUser(tokens.access_token)
    expect(me.status).toBe(200)
    expect(me.body.username).toBe('dora')
  })

  test('a public client with PKCE and no secret', async () => {
    const { application } = await createApplication('Pocket Map', false)
    const client: oauth.Client = { client_id: application.uid, token_endpoint_auth_method: 'none' }
    const flow = await authorizationRequest(client, 'read_user')
    // Still signed in from the first test: straight to the consent page.
    await page.goto(flow.url.href)
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize')
    const callback = await landOnCallback('Authorize Pocket Map')
    const tokens = await exchange(client, oauth.None(), flow, callback)
    expect(tokens.scope).toBe('read_user')
    const me = await currentUser(tokens.access_token)
    expect(me.status).toBe(200)
    expect(me.body.username).toBe('dora')
  })

  test('denying sends access_denied back to the client', async () => {
    const { application } = await createApplication('Nosy Map', true)
    const client: oauth.Client = { client_id: application.uid }
    const flow = await authorizationRequest(client, 'api')
    await page.goto(flow.url.href)
    const callback = await landOnCallback('Deny')
    expect(callback.searchParams.get('error')).toBe('access_denied')
    expect(callback.searchParams.get('state')).toBe(flow.state)
    let refusal: unknown
    try {
      oauth.validateAuthResponse(authorizationServer(), client, callback, flow.state)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(oauth.AuthorizationResponseError)
    expect((refusal as oauth.AuthorizationResponseError).error).toBe('access_denied')
    expect((refusal as oauth.AuthorizationResponseError).error_description).toBe(
      'The resource owner or authorization server denied the request.',
    )
  })
})
