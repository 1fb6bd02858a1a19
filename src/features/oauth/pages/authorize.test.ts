import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../../core/caller.js'
import { digestToken } from '../../../core/secrets.js'
import type { OAuthApplicationRow } from '../../../db/schema.js'
import { createTestUser } from '../../../testing/factories.js'
import { startTestServer, type TestServer } from '../../../testing/server.js'
import { createTestSession, type TestSession } from '../../../testing/sessions.js'
import { insertApplication } from '../../applications/store.js'
import { findSessionByDigest } from '../../sessions/store.js'
import { SESSION_COOKIE } from '../../sessions/service.js'
import { findGrantByDigest, insertAccessToken } from '../store.js'

const CALLBACK = 'https://app.example.com/callback'
const DENIED = 'error=access_denied&error_description=The+resource+owner+or+authorization+server+denied+the+request.'
const VERIFIER = 'dBjftJeZ4CVP-mJ92K9q8w3Og1ihSglGRJdMc7zA1wRV2zNfvs7Yjsu6'
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url')

let server: TestServer
let alice: User
let aliceSession: TestSession
let app: OAuthApplicationRow

interface Page {
  status: number
  location: string | null
  setCookie: string | null
  text: string
}

async function createApplication(overrides: Partial<OAuthApplicationRow> = {}): Promise<OAuthApplicationRow> {
  const at = new Date().toISOString()
  return insertApplication(server.database.db, {
    uid: randomBytes(32).toString('hex'),
    secret_digest: digestToken(randomBytes(32).toString('hex')),
    name: 'Example App',
    redirect_uri: CALLBACK,
    scopes: 'api read_user openid',
    confidential: 1,
    trusted: 0,
    owner_id: alice.id,
    created_at: at,
    updated_at: at,
    ...overrides,
  })
}

async function send(method: string, path: string, session: TestSession | null, form?: Record<string, string>): Promise<Page> {
  const headers: Record<string, string> = {}
  if (session) headers.cookie = session.cookie
  let body: string | undefined
  if (form) {
    body = new URLSearchParams(form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' })
  return {
    status: response.status,
    location: response.headers.get('location'),
    setCookie: response.headers.get('set-cookie'),
    text: await response.text(),
  }
}

function authorizePath(params: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams(params).toString()}`
}

function query(application: OAuthApplicationRow, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    client_id: application.uid,
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'api',
    state: 'xyz',
    ...overrides,
  }
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

function get(params: Record<string, string>, session: TestSession | null = aliceSession) {
  return send('GET', authorizePath(params), session)
}

/** Submits the consent page's form as a browser would: its hidden fields and the session's CSRF token. */
function approve(params: Record<string, string>, session: TestSession = aliceSession) {
  return send('POST', '/oauth/authorize', session, { authenticity_token: session.csrfToken, ...params })
}

function deny(params: Record<string, string>, session: TestSession = aliceSession) {
  return send('POST', '/oauth/authorize', session, { _method: 'delete', authenticity_token: session.csrfToken, ...params })
}

function expectErrorPage(page: Page, status: number, code: string, description: string) {
  expect(page.status).toBe(status)
  expect(page.location).toBeNull()
  expect(page.text).toContain('<h1>An error has occurred</h1>')
  expect(page.text).toContain(`<code class="oauth-error">${code}</code>`)
  expect(page.text).toContain(`<pre class="oauth-error-description">${description}</pre>`)
}

const INVALID_REDIRECT = 'The redirect URI included is not valid.'

function codeFrom(location: string | null, base = CALLBACK): string {
  expect(location).not.toBeNull()
  const url = new URL(location!)
  expect(location!.startsWith(`${base}?`)).toBe(true)
  const code = url.searchParams.get('code')!
  expect(code).toMatch(/^[0-9a-f]{64}$/)
  return code
}

/** Hidden fields of one form on the consent page. */
function formFields(pageText: string, formId: string): Record<string, string> {
  const form = new RegExp(`<form[^>]*id="${formId}"[^>]*>([\\s\\S]*?)</form>`).exec(pageText)
  expect(form).not.toBeNull()
  const fields: Record<string, string> = {}
  for (const input of form![1].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)) {
    fields[input[1]] = input[2]
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
  }
  return fields
}

beforeAll(async () => {
  server = await startTestServer()
  alice = await createTestUser(server.database.db, { username: 'alice', name: 'Alice Liddell' })
  aliceSession = await createTestSession(server, alice)
  app = await createApplication()
})
afterAll(() => server.close())

describe('a visitor', () => {
  test('is sent to sign in, and the request is kept to come back to', async () => {
    const path = authorizePath(query(app))
    const page = await send('GET', path, null)
    expect(page.status).toBe(302)
    expect(page.location).toBe('/users/sign_in')
    const cookie = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(page.setCookie ?? '')
    expect(cookie).not.toBeNull()
    const [session] = await findSessionByDigest(server.database.db, digestToken(cookie![1]))
    expect(session.user_id).toBeNull()
    expect(session.return_to).toBe(path)
  })

  test('with a session keeps it', async () => {
    const visitor = await createTestSession(server, null)
    const path = authorizePath(query(app, { state: 'from visitor' }))
    const page = await send('GET', path, visitor)
    expect(page.status).toBe(302)
    expect(page.location).toBe('/users/sign_in')
    expect(page.setCookie).toBeNull()
    const [session] = await findSessionByDigest(server.database.db, digestToken(visitor.cookie.split('=')[1]))
    expect(session.return_to).toBe(path)
  })

  test('cannot approve or deny, and is sent to sign in', async () => {
    const visitor = await createTestSession(server, null)
    for (const page of [await approve(query(app), visitor), await deny(query(app), visitor)]) {
      expect(page.status).toBe(302)
      expect(page.location).toBe('/users/sign_in')
    }
  })
})

describe('errors shown to the user, never redirected', () => {
  test('missing client_id', async () => {
    expectErrorPage(await get(query(app, { client_id: undefined })), 400, 'invalid_request', 'Missing required parameter: client_id.')
  })

  test('unknown client_id', async () => {
    const page = await get(query(app, { client_id: 'f'.repeat(64) }))
    expectErrorPage(
      page,
      401,
      'invalid_client',
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    )
  })

  test('missing redirect_uri, even with other errors after it', async () => {
    expectErrorPage(await get(query(app, { redirect_uri: undefined })), 400, 'invalid_redirect_uri', INVALID_REDIRECT)
    expectErrorPage(
      await get(query(app, { redirect_uri: undefined, response_type: 'token', scope: 'nope' })),
      400,
      'invalid_redirect_uri',
      INVALID_REDIRECT,
    )
  })

  test.each([
    ['an extra path', `${CALLBACK}/evil`],
    ['a path prefix', 'https://app.example.com/callbackevil'],
    ['a trailing slash', `${CALLBACK}/`],
    ['another port', 'https://app.example.com:8443/callback'],
    ['the default port written out', 'https://app.example.com:443/callback'],
    ['another host case', 'https://APP.example.com/callback'],
    ['another scheme case', 'HTTPS://app.example.com/callback'],
    ['another scheme', 'http://app.example.com/callback'],
    ['an added query', `${CALLBACK}?next=https://evil.example`],
    ['a fragment', `${CALLBACK}#x`],
    ['userinfo', 'https://app.example.com@evil.example/callback'],
    ['another host', 'https://evil.example/callback'],
    ['a sub-domain', 'https://app.example.com.evil.example/callback'],
    ['percent-encoding', 'https://app.example.com/%63allback'],
    ['a relative URI', '/callback'],
    ['two registered URIs in one', `${CALLBACK} https://other.example/cb`],
  ])('an unregistered redirect URI (%s) is an error page with no Location', async (_name, redirectUri) => {
    const page = await get(query(app, { redirect_uri: redirectUri, scope: 'nope' }))
    expectErrorPage(page, 400, 'invalid_redirect_uri', INVALID_REDIRECT)
    expect(page.text).not.toContain('evil.example')
  })

  test('a registered URI among several (one per line) matches, others do not', async () => {
    const several = await createApplication({ redirect_uri: `https://one.example/cb\r\n${CALLBACK}\nhttps://three.example/cb` })
    expect((await get(query(several))).status).toBe(200)
    expect((await get(query(several, { redirect_uri: 'https://three.example/cb' }))).status).toBe(200)
    expectErrorPage(await get(query(several, { redirect_uri: 'https://two.example/cb' })), 400, 'invalid_redirect_uri', INVALID_REDIRECT)
  })

  test('a loopback IP literal may use any port (RFC 8252 §7.3); the name localhost may not', async () => {
    const native = await createApplication({ redirect_uri: 'http://127.0.0.1/callback\nhttp://[::1]:80/cb\nhttp://localhost/callback' })
    expect((await get(query(native, { redirect_uri: 'http://127.0.0.1:53123/callback' }))).status).toBe(200)
    expect((await get(query(native, { redirect_uri: 'http://[::1]:4000/cb' }))).status).toBe(200)
    expectErrorPage(
      await get(query(native, { redirect_uri: 'http://127.0.0.1:53123/callback/other' })),
      400,
      'invalid_redirect_uri',
      INVALID_REDIRECT,
    )
    expectErrorPage(
      await get(query(native, { redirect_uri: 'http://evil@127.0.0.1:53123/callback' })),
      400,
      'invalid_redirect_uri',
      INVALID_REDIRECT,
    )
    expectErrorPage(
      await get(query(native, { redirect_uri: 'http://localhost:5000/callback' })),
      400,
      'invalid_redirect_uri',
      INVALID_REDIRECT,
    )
  })

  test('a user whose e-mail is not confirmed', async () => {
    const unconfirmed = await createTestUser(server.database.db, { confirmed_at: null })
    const page = await get(query(app), await createTestSession(server, unconfirmed))
    expectErrorPage(page, 403, 'unconfirmed_email', 'Verify the email address in your account profile before you sign in.')
  })
})

describe('errors redirected to the registered URI', () => {
  test('missing response_type', async () => {
    const page = await get(query(app, { response_type: undefined }))
    expect(page.status).toBe(302)
    expect(page.location).toBe(`${CALLBACK}?error=invalid_request&error_description=Missing+required+parameter%3A+response_type.&state=xyz`)
  })

  test('an unsupported response_type', async () => {
    const page = await get(query(app, { response_type: 'code id_token' }))
    expect(page.location).toBe(
      `${CALLBACK}?error=unsupported_response_type&error_description=The+authorization+server+does+not+support+this+response+type.&state=xyz`,
    )
  })

  test('the implicit grant is not offered, and hears so in the fragment', async () => {
    const page = await get(query(app, { response_type: 'token' }))
    expect(page.status).toBe(302)
    expect(page.location).toBe(
      `${CALLBACK}#error=unsupported_response_type&error_description=The+authorization+server+does+not+support+this+response+type.&state=xyz`,
    )
  })

  const INVALID_SCOPE = `${CALLBACK}?error=invalid_scope&error_description=The+requested+scope+is+invalid%2C+unknown%2C+or+malformed.&state=xyz`

  test.each([
    ['unknown', 'api write_everything'],
    ['known but not the application', 'sudo'],
    ['only separators', '   '],
    ['with a tab', 'api\tread_user'],
  ])('a scope %s', async (_name, scope) => {
    const page = await get(query(app, { scope }))
    expect(page.status).toBe(302)
    expect(page.location).toBe(INVALID_SCOPE)
  })

  test('no scope for an application without the default scope api', async () => {
    const readOnly = await createApplication({ scopes: 'read_user openid' })
    const page = await get(query(readOnly, { scope: undefined }))
    expect(page.location).toBe(INVALID_SCOPE)
  })

  const INVALID_METHOD = `${CALLBACK}?error=invalid_code_challenge_method&error_description=The+code+challenge+method+must+be+S256.&state=xyz`

  test('a challenge without its method, or with plain', async () => {
    expect((await get(query(app, { code_challenge: CHALLENGE }))).location).toBe(INVALID_METHOD)
    expect((await get(query(app, { code_challenge: CHALLENGE, code_challenge_method: 'plain' }))).location).toBe(INVALID_METHOD)
    expect((await get(query(app, { code_challenge: CHALLENGE, code_challenge_method: 's256' }))).location).toBe(INVALID_METHOD)
  })

  test('a challenge that cannot be an S256 digest', async () => {
    const page = await get(query(app, { code_challenge: 'short', code_challenge_method: 'S256' }))
    expect(page.location).toBe(
      `${CALLBACK}?error=invalid_request&error_description=The+request+is+missing+a+required+parameter%2C+includes+an+unsupported+parameter+value%2C+or+is+otherwise+malformed.&state=xyz`,
    )
  })

  test('an S256 challenge is exactly 43 characters of base64url without padding', async () => {
    const malformed = `${CALLBACK}?error=invalid_request&error_description=The+request+is+missing+a+required+parameter%2C+includes+an+unsupported+parameter+value%2C+or+is+otherwise+malformed.&state=xyz`
    const standard = createHash('sha256').update(VERIFIER).digest('base64')
    for (const challenge of [
      CHALLENGE.slice(0, 42),
      `${CHALLENGE}A`,
      standard,
      `${CHALLENGE.slice(0, 42)}+`,
      `${CHALLENGE.slice(0, 42)}/`,
      `${CHALLENGE.slice(0, 42)}.`,
    ]) {
      const page = await get(query(app, { code_challenge: challenge, code_challenge_method: 'S256' }))
      expect({ status: page.status, location: page.location }).toEqual({ status: 302, location: malformed })
    }
    const page = await get(query(app, { code_challenge: CHALLENGE, code_challenge_method: 'S256' }))
    expect(page.status).toBe(200)
  })

  test('the redirect URI keeps its own query; state is echoed form-encoded, or left out when absent', async () => {
    const withQuery = 'https://app.example.com/cb?tenant=a%20b&state=registered'
    const tenant = await createApplication({ redirect_uri: withQuery })
    const page = await get(query(tenant, { redirect_uri: withQuery, scope: 'nope', state: 'a b&c=d/é' }))
    expect(page.location).toBe(
      'https://app.example.com/cb?tenant=a+b&state=a+b%26c%3Dd%2F%C3%A9&error=invalid_scope&error_description=The+requested+scope+is+invalid%2C+unknown%2C+or+malformed.',
    )
    const stateless = await get(query(app, { scope: 'nope', state: undefined }))
    expect(stateless.location).toBe(
      `${CALLBACK}?error=invalid_scope&error_description=The+requested+scope+is+invalid%2C+unknown%2C+or+malformed.`,
    )
  })
})

describe('the consent page', () => {
  test('names the application, the scopes and the user, with forms to authorize or deny', async () => {
    const page = await get(
      query(app, {
        scope: 'api read_user',
        state: 'st"ate<1>',
        nonce: 'n-0S6',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      }),
    )
    expect(page.status).toBe(200)
    expect(page.location).toBeNull()
    expect(page.text).toContain('<h1><strong>Example App</strong> is requesting access to your account on svc.</h1>')
    expect(page.text).toContain('Signed in as <strong>Alice Liddell</strong> · @alice')
    expect(page.text).toContain('<strong>Access the authenticated user&#39;s API</strong> <code>api</code>')
    expect(page.text).toContain('Grants complete read/write access to the API, including all groups and projects.')
    expect(page.text).toContain('<code>read_user</code>')
    expect(page.text).not.toContain('<code>openid</code>')
    expect(page.text).toContain('You will be redirected to <strong>app.example.com</strong> after authorizing.')
    expect(page.text).toContain('<button type="submit">Authorize Example App</button>')
    expect(page.text).toContain('<button type="submit">Deny</button>')
    expect(page.text).not.toContain('You are an administrator')
    const expected = {
      client_id: app.uid,
      redirect_uri: CALLBACK,
      state: 'st"ate<1>',
      response_type: 'code',
      scope: 'api read_user',
      nonce: 'n-0S6',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    }
    const authorize = formFields(page.text, 'authorize')
    expect(authorize).toMatchObject(expected)
    expect(authorize.authenticity_token).toMatch(/.{20,}/)
    const denyForm = formFields(page.text, 'deny')
    expect(denyForm).toMatchObject({ ...expected, _method: 'delete' })
    expect(page.text).toContain('value="st&quot;ate&lt;1&gt;"')
  })

  test('escapes what the application registered', async () => {
    const evil = await createApplication({ name: '<script>alert(1)</script>' })
    const page = await get(query(evil))
    expect(page.status).toBe(200)
    expect(page.text).not.toContain('<script>alert(1)</script>')
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  test('without a scope asks for the default scope api', async () => {
    const page = await get(query(app, { scope: undefined }))
    expect(page.status).toBe(200)
    expect(formFields(page.text, 'authorize').scope).toBe('api')
  })

  test('warns an administrator', async () => {
    const admin = await createTestUser(server.database.db, { admin: 1 })
    const page = await get(query(app), await createTestSession(server, admin))
    expect(page.text).toContain('You are an administrator')
  })

  test('answers HEAD like GET', async () => {
    const page = await send('HEAD', authorizePath(query(app)), aliceSession)
    expect(page.status).toBe(200)
  })
})

describe('approving', () => {
  test('with PKCE issues a code for the request, stored by digest', async () => {
    const at = new Date(Date.now() + 60_000)
    server.freeze(at)
    const params = query(app, {
      scope: 'api openid',
      state: 'a b/c',
      nonce: 'nonce-1',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    })
    const consent = await get(params)
    const page = await approve(formFields(consent.text, 'authorize'))
    expect(page.status).toBe(302)
    const code = codeFrom(page.location)
    expect(page.location).toBe(`${CALLBACK}?code=${code}&state=a+b%2Fc`)
    const grant = await findGrantByDigest(server.database.db, digestToken(code))
    expect(grant).toMatchObject({
      application_id: app.id,
      resource_owner_id: alice.id,
      redirect_uri: CALLBACK,
      scopes: 'api openid',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      nonce: 'nonce-1',
      expires_in: 600,
      revoked_at: null,
    })
    expect(new Date(grant!.created_at).toISOString()).toBe(at.toISOString())
  })

  test('without PKCE issues a code with no challenge', async () => {
    const page = await approve(query(app, { scope: 'read_user', state: undefined }))
    const code = codeFrom(page.location)
    expect(page.location).toBe(`${CALLBACK}?code=${code}`)
    const grant = await findGrantByDigest(server.database.db, digestToken(code))
    expect(grant).toMatchObject({ scopes: 'read_user', code_challenge: null, code_challenge_method: null, nonce: null })
  })

  test('each approval issues a new code', async () => {
    const first = codeFrom((await approve(query(app))).location)
    const second = codeFrom((await approve(query(app))).location)
    expect(first).not.toBe(second)
  })

  test('checks the submitted fields again', async () => {
    const tampered = await approve(query(app, { redirect_uri: 'https://evil.example/callback' }))
    expectErrorPage(tampered, 400, 'invalid_redirect_uri', INVALID_REDIRECT)
    const unknown = await approve(query(app, { client_id: 'nope' }))
    expect(unknown.status).toBe(401)
    expect(unknown.location).toBeNull()
    const scope = await approve(query(app, { scope: 'api sudo' }))
    expect(scope.status).toBe(302)
    expect(scope.location).toBe(
      `${CALLBACK}?error=invalid_scope&error_description=The+requested+scope+is+invalid%2C+unknown%2C+or+malformed.&state=xyz`,
    )
  })

  test('needs the CSRF token', async () => {
    const page = await send('POST', '/oauth/authorize', aliceSession, query(app))
    expect(page.status).toBe(422)
    expect(page.location).toBeNull()
    const forged = await send('POST', '/oauth/authorize', aliceSession, { ...query(app), authenticity_token: 'forged' })
    expect(forged.status).toBe(422)
  })

  test('an out-of-band client is shown the code instead of being redirected', async () => {
    const oob = await createApplication({ redirect_uri: 'urn:ietf:wg:oauth:2.0:oob' })
    const params = query(oob, { redirect_uri: 'urn:ietf:wg:oauth:2.0:oob' })
    expect((await get(params)).status).toBe(200)
    const page = await approve(params)
    expect(page.status).toBe(200)
    expect(page.location).toBeNull()
    const code = /<code id="authorization_code">([0-9a-f]{64})<\/code>/.exec(page.text)![1]
    expect(await findGrantByDigest(server.database.db, digestToken(code))).toMatchObject({ application_id: oob.id })
    expectErrorPage(await get({ ...params, scope: 'nope' }), 400, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.')
  })

  test('redirects to a registered custom-scheme URI', async () => {
    const mobile = await createApplication({ redirect_uri: 'com.example.app:/oauth2redirect' })
    const page = await approve(query(mobile, { redirect_uri: 'com.example.app:/oauth2redirect' }))
    expect(page.status).toBe(302)
    codeFrom(page.location, 'com.example.app:/oauth2redirect')
  })
})

describe('denying', () => {
  test('sends access_denied back with the state', async () => {
    const consent = await get(query(app, { state: 'keep me' }))
    const page = await deny(formFields(consent.text, 'deny'))
    expect(page.status).toBe(302)
    expect(page.location).toBe(`${CALLBACK}?${DENIED}&state=keep+me`)
  })

  test('never to an unregistered redirect URI', async () => {
    const page = await deny(query(app, { redirect_uri: 'https://evil.example/callback' }))
    expectErrorPage(page, 400, 'invalid_redirect_uri', INVALID_REDIRECT)
  })
})

describe('consent is skipped', () => {
  test('for a trusted application', async () => {
    const trusted = await createApplication({ trusted: 1 })
    const page = await get(query(trusted, { state: 's1' }))
    expect(page.status).toBe(302)
    const code = codeFrom(page.location)
    expect(page.location).toBe(`${CALLBACK}?code=${code}&state=s1`)
    expect(await findGrantByDigest(server.database.db, digestToken(code))).toMatchObject({ application_id: trusted.id, scopes: 'api' })
  })

  test('but not its errors', async () => {
    const trusted = await createApplication({ trusted: 1 })
    expectErrorPage(await get(query(trusted, { redirect_uri: 'https://evil.example/' })), 400, 'invalid_redirect_uri', INVALID_REDIRECT)
  })

  async function giveToken(application: OAuthApplicationRow, user: User, scopes: string, revoked = false) {
    await insertAccessToken(server.database.db, {
      application_id: application.id,
      resource_owner_id: user.id,
      token_digest: digestToken(randomBytes(32).toString('hex')),
      refresh_token_digest: null,
      scopes,
      expires_in: 7200,
      created_at: new Date().toISOString(),
      revoked_at: revoked ? new Date().toISOString() : null,
    })
  }

  test('when the user already gave a confidential application a live token for exactly these scopes', async () => {
    const known = await createApplication()
    const bob = await createTestUser(server.database.db)
    const session = await createTestSession(server, bob)
    await giveToken(known, bob, 'read_user api')
    await giveToken(known, bob, 'openid', true)
    const same = await get(query(known, { scope: 'api read_user' }), session)
    expect(same.status).toBe(302)
    codeFrom(same.location)
    // Fewer, more, or only revoked scopes ask again (DK `scopes_match?` wants the same set).
    expect((await get(query(known, { scope: 'api' }), session)).status).toBe(200)
    expect((await get(query(known, { scope: 'api read_user openid' }), session)).status).toBe(200)
    expect((await get(query(known, { scope: 'openid' }), session)).status).toBe(200)
    // Another user's token counts for nothing.
    expect((await get(query(known, { scope: 'api read_user' }))).status).toBe(200)
  })

  test('not for a public application, token or not', async () => {
    const spa = await createApplication({ confidential: 0 })
    await giveToken(spa, alice, 'api')
    expect((await get(query(spa))).status).toBe(200)
  })
})
