import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { closeBrowser, launchBrowser } from '../../testing/browser.js'
import { createTestUser } from '../../testing/factories.js'
import { client, type TestResponse } from '../../testing/http.js'
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
  app = await createTestApplication(server.database.db, { confidential: false })
})
afterAll(() => server.close())

const ORIGIN = 'https://spa.example'

function preflight(path: string, headers: Record<string, string>) {
  return request('OPTIONS', path, { headers: { origin: ORIGIN, ...headers } })
}

function corsHeaders(response: TestResponse): Record<string, string> {
  return Object.fromEntries(Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')))
}

describe('CORS preflight on /oauth/token and /oauth/revoke', () => {
  test.each(['/oauth/token', '/oauth/revoke'])('%s: POST with Authorization is allowed', async (path) => {
    const response = await preflight(path, { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' })
    expect(response.status).toBe(200)
    expect(response.text).toBe('')
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization',
      'access-control-max-age': '7200',
    })
  })

  test('the requested headers are echoed; CORS-safelisted ones are always allowed', async () => {
    const response = await preflight('/oauth/token', {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'Authorization, Content-Type, Accept',
    })
    expect(corsHeaders(response)['access-control-allow-headers']).toBe('Authorization, Content-Type, Accept')
    const bare = await preflight('/oauth/token', { 'access-control-request-method': 'POST' })
    expect(corsHeaders(bare)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST',
      'access-control-max-age': '7200',
    })
  })

  test('X-Requested-With is not allowed (spec: OAuth 2.0 provider, CORS): 200 without CORS headers', async () => {
    for (const path of ['/oauth/token', '/oauth/revoke']) {
      const response = await preflight(path, {
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-requested-with',
      })
      expect({ status: response.status, text: response.text, cors: corsHeaders(response) }).toEqual({ status: 200, text: '', cors: {} })
    }
  })

  test('another method is not allowed', async () => {
    const response = await preflight('/oauth/token', { 'access-control-request-method': 'GET' })
    expect({ status: response.status, cors: corsHeaders(response) }).toEqual({ status: 200, cors: {} })
  })

  test('OPTIONS that is no preflight gets the usual Allow answer', async () => {
    const response = await request('OPTIONS', '/oauth/token')
    expect(response.status).toBe(204)
    expect(response.headers.allow).toBe('OPTIONS, POST')
    expect(corsHeaders(response)).toEqual({})
  })
})

describe('CORS headers on actual requests', () => {
  test('a cross-origin token request gets them, on success and on error', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    const success = await request('POST', '/oauth/token', {
      form: true,
      headers: { origin: ORIGIN },
      body: { grant_type: 'authorization_code', code: grant.code, redirect_uri: REDIRECT_URI, client_id: app.clientId },
    })
    expect(success.status).toBe(200)
    const expected = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST', 'access-control-max-age': '7200' }
    expect(corsHeaders(success)).toEqual(expected)
    expect(success.headers.vary).toBe('Origin')
    const failure = await request('POST', '/oauth/revoke', { form: true, headers: { origin: ORIGIN }, body: {} })
    expect(failure.status).toBe(200)
    expect(corsHeaders(failure)).toEqual(expected)
    const error = await request('POST', '/oauth/token', { form: true, headers: { origin: ORIGIN }, body: {} })
    expect(error.status).toBe(400)
    expect(corsHeaders(error)).toEqual(expected)
  })

  test('a same-origin request gets none, but Vary: Origin', async () => {
    const response = await request('POST', '/oauth/token', { form: true, body: {} })
    expect(corsHeaders(response)).toEqual({})
    expect(response.headers.vary).toBe('Origin')
  })
})

describe('a browser on another origin', () => {
  let browser: Browser
  let page: Server
  let pageUrl: string

  beforeAll(async () => {
    page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end('<!DOCTYPE html><title>SPA</title>')
    })
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await closeBrowser(browser)
    await new Promise((resolve) => page.close(resolve))
  })

  test('exchanges a code with a preflighted request, and cannot send X-Requested-With', async () => {
    const grant = await createTestGrant(server.database.db, app, user)
    const tab = await browser.newPage()
    await tab.goto(pageUrl)
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: REDIRECT_URI,
      client_id: app.clientId,
    }).toString()
    const outcome = await tab.evaluate(
      async ({ url, body }) => {
        async function attempt(headers: Record<string, string>) {
          try {
            const response = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
              body,
            })
            return { status: response.status, json: await response.json() }
          } catch (error) {
            return { failed: String(error) }
          }
        }
        // The Authorization header makes this a preflighted request; rack-cors allows it.
        const allowed = await attempt({ authorization: 'Bearer unused' })
        const refused = await attempt({ 'x-requested-with': 'XMLHttpRequest' })
        return { allowed, refused }
      },
      { url: `${server.url}/oauth/token`, body },
    )
    expect(outcome.allowed).toMatchObject({ status: 200, json: { token_type: 'bearer', scope: 'api' } })
    expect(outcome.refused).toEqual({ failed: expect.stringContaining('Failed to fetch') })
    await tab.close()
  })
})
