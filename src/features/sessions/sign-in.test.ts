import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { digestToken } from '../../core/secrets.js'
import { defaultSettings, type Settings } from '../../core/settings.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { safeReturnPath } from './routes.js'
import { findSession, setReturnTo } from './service.js'
import { authenticityTokenOf, flashOf, webClient } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>

const COOKIE = /^_svc_session=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Lax$/
const CLEARED = '_svc_session=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax'
const INVALID = 'Invalid login or password.'

async function configure(settings: Partial<Settings>) {
  const res = await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: settings })
  expect(res.status).toBe(200)
}

async function userRow(id: number): Promise<User> {
  return server.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

async function sessionRows(cookieValue: string) {
  return server.database.db.selectFrom('sessions').selectAll().where('session_digest', '=', digestToken(cookieValue)).execute()
}

function isoOf(value: string | null): string | null {
  return value === null ? null : new Date(value).toISOString()
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  // Many sign-ins from one address: the protected-paths limit has its own test below.
  await configure({ throttle_protected_paths_enabled: false })
})
afterAll(() => server.close())

describe('GET /users/sign_in', () => {
  test('shows the form in the layout and starts a visitor session for its CSRF token', async () => {
    const res = await request('GET', '/users/sign_in')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-store')
    const cookie = COOKIE.exec(res.headers['set-cookie'])
    expect(cookie).not.toBeNull()
    expect(res.text).toContain('<title>Sign in · svc</title>')
    expect(res.text).toContain('<form method="post" action="/users/sign_in" accept-charset="UTF-8">')
    for (const field of ['user[login]', 'user[password]', 'user[remember_me]', 'authenticity_token']) {
      expect(res.text).toContain(`name="${field}"`)
    }
    const [row] = await sessionRows(cookie![1])
    expect(row.user_id).toBeNull()
  })

  test('a second visit keeps the visitor session', async () => {
    const web = webClient(server.url)
    await web.request('GET', '/users/sign_in')
    const first = web.cookie
    const again = await web.request('GET', '/users/sign_in')
    expect(again.status).toBe(200)
    expect(again.headers['set-cookie']).toBeUndefined()
    expect(web.cookie).toBe(first)
  })
})

describe('POST /users/sign_in', () => {
  test('signs in by username in any case, in a new session; the visitor session row is deleted', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    const token = await web.csrfTokenFrom('/users/sign_in')
    const visitorCookie = web.cookie!
    const at = new Date(Date.now() + 1000)
    server.freeze(at)
    const res = await web.request('POST', '/users/sign_in', {
      form: true,
      headers: { 'user-agent': 'sign-in test' },
      body: { authenticity_token: token, 'user[login]': user.username.toUpperCase(), 'user[password]': 'password123' },
    })
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/')
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.text).toBe('<html><body>You are being <a href="/">redirected</a>.</body></html>')
    const cookie = COOKIE.exec(res.headers['set-cookie'])
    expect(cookie).not.toBeNull()
    expect(cookie![1]).not.toBe(visitorCookie)

    // Session fixation: the visitor's row is gone, not upgraded; the new one belongs to the user.
    expect(await sessionRows(visitorCookie)).toEqual([])
    const [row] = await sessionRows(cookie![1])
    expect(row.user_id).toBe(user.id)
    expect(row.ip).toBe('127.0.0.1')
    expect(row.user_agent).toBe('sign-in test')
    expect(row.return_to).toBeNull()
    expect(isoOf(row.expires_at)).toBe(new Date(at.getTime() + defaultSettings.session_expire_delay * 60_000).toISOString())

    const tracked = await userRow(user.id)
    expect(tracked.sign_in_count).toBe(1)
    expect(isoOf(tracked.current_sign_in_at)).toBe(at.toISOString())
    expect(isoOf(tracked.last_sign_in_at)).toBe(at.toISOString())
    expect(tracked.current_sign_in_ip).toBe('127.0.0.1')
    expect(tracked.last_sign_in_ip).toBe('127.0.0.1')
    expect(tracked.failed_attempts).toBe(0)
    expect(String(tracked.last_activity_on).slice(0, 10)).toBe(at.toISOString().slice(0, 10))

    const home = await web.request('GET', '/')
    expect(home.status).toBe(200)
    expect(home.text).toContain(`<strong>@${user.username}</strong>`)
    expect(home.text).toContain('<a href="/-/user_settings/applications">Applications</a>')
    expect(home.text).toContain('<meta name="csrf-token" content="')
    // The old cookie signs nobody in.
    const old = await request('GET', '/', { headers: { cookie: `_svc_session=${visitorCookie}` } })
    expect(old.status).toBe(302)
    expect(old.headers.location).toBe('/users/sign_in')

    // A later sign-in moves the current sign-in to the last one.
    const later = new Date(at.getTime() + 3_600_000)
    server.freeze(later)
    expect((await webClient(server.url).signIn(user.username, 'password123')).status).toBe(302)
    const again = await userRow(user.id)
    expect(again.sign_in_count).toBe(2)
    expect(isoOf(again.last_sign_in_at)).toBe(at.toISOString())
    expect(isoOf(again.current_sign_in_at)).toBe(later.toISOString())
  })

  test('signs in by e-mail, case-insensitively and with surrounding spaces', async () => {
    const user = await createTestUser(server.database.db)
    const res = await webClient(server.url).signIn(`  ${user.email.toUpperCase()} `, 'password123')
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/')
  })

  test('a wrong password or an unknown login shows the form again with Devise alert and counts the attempt', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    const wrong = await web.signIn(user.username, 'not-the-password')
    expect(wrong.status).toBe(200)
    expect(wrong.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(wrong.headers['set-cookie']).toBeUndefined()
    expect(flashOf(wrong.text)).toBe(INVALID)
    expect(wrong.text).toContain(`name="user[login]" value="${user.username}"`)
    expect(wrong.text).not.toContain('not-the-password')
    expect((await userRow(user.id)).failed_attempts).toBe(1)

    const unknown = await web.signIn('nobody-has-this-login', 'password123')
    expect(unknown.status).toBe(200)
    expect(flashOf(unknown.text)).toBe(INVALID)

    for (const body of [
      {},
      { 'user[login]': '', 'user[password]': '' },
      { 'user[login][]': user.username, 'user[password]': 'password123' },
    ]) {
      const token = await web.csrfTokenFrom('/users/sign_in')
      const odd = await web.request('POST', '/users/sign_in', { form: true, body: { authenticity_token: token, ...body } })
      expect(odd.status).toBe(200)
      expect(flashOf(odd.text)).toBe(INVALID)
    }
    // Still a visitor: the page offers sign-in.
    expect((await web.request('GET', '/')).headers.location).toBe('/users/sign_in')

    // A success resets the count.
    expect((await web.signIn(user.username, 'password123')).status).toBe(302)
    expect((await userRow(user.id)).failed_attempts).toBe(0)
  })

  test('without a valid authenticity token the form is refused with 422 and nobody signs in', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.csrfTokenFrom('/users/sign_in')
    for (const token of [undefined, '', 'forged']) {
      const body: Record<string, string> = { 'user[login]': user.username, 'user[password]': 'password123' }
      if (token !== undefined) body.authenticity_token = token
      const res = await web.request('POST', '/users/sign_in', { form: true, body })
      expect(res.status).toBe(422)
      expect(res.text).toContain('The change you requested was rejected.')
    }
    // A token from another visitor's session does not fit this one.
    const other = await webClient(server.url).csrfTokenFrom('/users/sign_in')
    const crossed = await web.request('POST', '/users/sign_in', {
      form: true,
      body: { authenticity_token: other, 'user[login]': user.username, 'user[password]': 'password123' },
    })
    expect(crossed.status).toBe(422)
    // No cookie at all: no session to check against.
    const bare = await request('POST', '/users/sign_in', {
      form: true,
      body: { authenticity_token: other, 'user[login]': user.username, 'user[password]': 'password123' },
    })
    expect(bare.status).toBe(422)
    expect((await userRow(user.id)).sign_in_count).toBe(0)
  })

  test('remember me makes the cookie outlive the browser until the session expires', async () => {
    const user = await createTestUser(server.database.db)
    const at = new Date(Date.now() + 2000)
    server.freeze(at)
    const res = await webClient(server.url).signIn(user.username, 'password123', { 'user[remember_me]': '1' })
    expect(res.status).toBe(302)
    const expires = new Date(at.getTime() + defaultSettings.session_expire_delay * 60_000).toUTCString()
    expect(res.headers['set-cookie']).toMatch(
      new RegExp(`^_svc_session=[A-Za-z0-9_-]{43}; Path=/; Expires=${expires.replace(/[+]/g, '\\+')}; HttpOnly; SameSite=Lax$`),
    )
    const plain = await webClient(server.url).signIn(user.username, 'password123', { 'user[remember_me]': '0' })
    expect(plain.headers['set-cookie']).toMatch(COOKIE)
  })

  test('users with two-factor authentication sign in with their password: there is no second factor yet', async () => {
    const user = await createTestUser(server.database.db, { two_factor_enabled: 1 })
    const res = await webClient(server.url).signIn(user.username, 'password123')
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/')
  })
})

describe('return_to', () => {
  async function visitorWithReturnTo(returnTo: string) {
    const web = webClient(server.url)
    await web.csrfTokenFrom('/users/sign_in')
    const session = await findSession(server.database.db, web.cookie!, defaultSettings, new Date())
    await setReturnTo(server.database.db, session!, returnTo)
    return web
  }

  test('after signing in the visitor goes back to the page that sent them, once', async () => {
    const user = await createTestUser(server.database.db)
    const target = '/oauth/authorize?client_id=abc&redirect_uri=http%3A%2F%2Flocalhost%2Fcb&response_type=code&state=xyz'
    const web = await visitorWithReturnTo(target)
    const res = await web.signIn(user.username, 'password123')
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe(target)
    const [row] = await sessionRows(web.cookie!)
    expect(row.return_to).toBeNull()
  })

  test('a failed attempt keeps it for the next one', async () => {
    const user = await createTestUser(server.database.db)
    const web = await visitorWithReturnTo('/-/user_settings/applications')
    expect((await web.signIn(user.username, 'wrong-password')).status).toBe(200)
    const res = await web.signIn(user.username, 'password123')
    expect(res.headers.location).toBe('/-/user_settings/applications')
  })

  test('is never another site: absolute, scheme-relative and backslash URLs go home', async () => {
    const user = await createTestUser(server.database.db)
    for (const evil of [
      'https://evil.example/x',
      '//evil.example/x',
      '/\\evil.example/x',
      'javascript:alert(1)',
      'evil',
      '/users/sign_in',
    ]) {
      const web = await visitorWithReturnTo(evil)
      const res = await web.signIn(user.username, 'password123')
      expect(res.status).toBe(302)
      expect(res.headers.location).toBe('/')
    }
  })

  test('safeReturnPath accepts only paths of this instance', () => {
    expect(safeReturnPath('/a/b?c=d#e')).toBe('/a/b?c=d#e')
    expect(safeReturnPath('/')).toBe('/')
    expect(safeReturnPath(null)).toBe('/')
    expect(safeReturnPath('')).toBe('/')
    expect(safeReturnPath('//x')).toBe('/')
    expect(safeReturnPath('/\\x')).toBe('/')
    expect(safeReturnPath('/a\r\nSet-Cookie: x=y')).toBe('/')
    expect(safeReturnPath('http://127.0.0.1/x')).toBe('/')
    expect(safeReturnPath('/users/sign_in?x=1')).toBe('/')
  })

  test('someone already signed in is sent on from the sign-in page', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    const page = await web.request('GET', '/users/sign_in')
    expect(page.status).toBe(302)
    expect(page.headers.location).toBe('/')
    const session = await findSession(server.database.db, web.cookie!, defaultSettings, new Date())
    await setReturnTo(server.database.db, session!, '/-/user_settings/applications')
    const onward = await web.request('GET', '/users/sign_in')
    expect(onward.headers.location).toBe('/-/user_settings/applications')

    const token = authenticityTokenOf((await web.request('GET', '/')).text)
    const post = await web.request('POST', '/users/sign_in', {
      form: true,
      body: { authenticity_token: token, 'user[login]': 'whoever', 'user[password]': 'whatever' },
    })
    expect(post.status).toBe(302)
    expect(post.headers.location).toBe('/')
  })
})

describe('lockout (Devise lockable, GitLab settings)', () => {
  test('the default limit is 10 failed attempts; the 10th locks the account', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    for (let i = 1; i <= 9; i++) await web.signIn(user.username, `wrong-${i}`)
    expect(await userRow(user.id)).toMatchObject({ failed_attempts: 9, locked_at: null })
    await web.signIn(user.username, 'wrong-10')
    const locked = await userRow(user.id)
    expect(locked.failed_attempts).toBe(10)
    expect(locked.locked_at).not.toBeNull()
  })

  test('a locked account cannot sign in, even with its password, until the unlock period has passed', async () => {
    await configure({ max_login_attempts: 3, failed_login_attempts_unlock_period_in_minutes: 5 })
    try {
      const user = await createTestUser(server.database.db)
      const at = new Date(Date.now() + 5000)
      server.freeze(at)
      const web = webClient(server.url)
      for (let i = 0; i < 3; i++) expect(flashOf((await web.signIn(user.username, 'wrong')).text)).toBe(INVALID)
      const locked = await userRow(user.id)
      expect(isoOf(locked.locked_at)).toBe(at.toISOString())

      // GitLab runs Devise in paranoid mode: the locked account gets the same text as a wrong password.
      server.travel(4 * 60_000 + 59_000)
      const refused = await web.signIn(user.username, 'password123')
      expect(refused.status).toBe(200)
      expect(flashOf(refused.text)).toBe(INVALID)
      expect(await userRow(user.id)).toMatchObject({ failed_attempts: 4, sign_in_count: 0 })
      expect(isoOf((await userRow(user.id)).locked_at)).toBe(at.toISOString())

      // The API shows the lock too, while it lasts.
      const shown = await request('GET', `/api/v4/users/${user.id}`, { token: server.rootToken })
      expect(shown.body.locked).toBe(true)

      server.travel(1000)
      const signedIn = await web.signIn(user.username, 'password123')
      expect(signedIn.status).toBe(302)
      expect(await userRow(user.id)).toMatchObject({ failed_attempts: 0, locked_at: null, sign_in_count: 1 })
    } finally {
      await configure({ max_login_attempts: null, failed_login_attempts_unlock_period_in_minutes: null })
    }
  })

  test('after an expired lock, counting starts again from zero', async () => {
    await configure({ max_login_attempts: 2, failed_login_attempts_unlock_period_in_minutes: 1 })
    try {
      const user = await createTestUser(server.database.db)
      const web = webClient(server.url)
      await web.signIn(user.username, 'wrong')
      await web.signIn(user.username, 'wrong')
      expect((await userRow(user.id)).locked_at).not.toBeNull()
      server.travel(61_000)
      await web.signIn(user.username, 'wrong')
      expect(await userRow(user.id)).toMatchObject({ failed_attempts: 1, locked_at: null })
    } finally {
      await configure({ max_login_attempts: null, failed_login_attempts_unlock_period_in_minutes: null })
    }
  })
})

describe('account states', () => {
  const blocked = 'Your account has been blocked. Please contact your svc administrator if you think this is an error.'
  const pending =
    'Your account is pending approval from your svc administrator and hence blocked. Please contact your svc administrator if you think this is an error.'

  test.each([
    ['blocked', blocked],
    ['ldap_blocked', blocked],
    ['banned', blocked],
    ['blocked_pending_approval', pending],
  ])('a %s user is refused with the inactive message, once the password is right', async (state, message) => {
    const user = await createTestUser(server.database.db, { state })
    const web = webClient(server.url)
    const wrong = await web.signIn(user.username, 'wrong')
    expect(flashOf(wrong.text)).toBe(INVALID)
    const res = await web.signIn(user.username, 'password123')
    expect(res.status).toBe(200)
    expect(flashOf(res.text)).toBe(message)
    expect(res.headers['set-cookie']).toBeUndefined()
    expect(await userRow(user.id)).toMatchObject({ sign_in_count: 0, state })
  })

  test('a bot user is refused', async () => {
    const user = await createTestUser(server.database.db, { bot: 1 })
    const res = await webClient(server.url).signIn(user.username, 'password123')
    expect(flashOf(res.text)).toBe(
      'Your account does not have the required permission to login. Please contact your svc administrator if you think this is an error.',
    )
  })

  test('a deactivated user signs in and is active again (GL SessionsController#create)', async () => {
    const user = await createTestUser(server.database.db, { state: 'deactivated' })
    const web = webClient(server.url)
    const res = await web.signIn(user.username, 'password123')
    expect(res.status).toBe(302)
    expect((await userRow(user.id)).state).toBe('active')
    // GL SessionsController: the next page says so, once (the flash kept in the session).
    const home = await web.request('GET', '/')
    expect(home.status).toBe(200)
    expect(home.text).toContain(
      '<div class="flash notice" role="alert">Welcome back! Your account had been deactivated due to inactivity but is now reactivated.</div>',
    )
    expect(flashOf((await web.request('GET', '/')).text)).toBeNull()
  })

  test('a user blocked after signing in is signed out', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    expect((await request('POST', `/api/v4/users/${user.id}/block`, { token: server.rootToken })).status).toBe(201)
    const home = await web.request('GET', '/')
    expect(home.status).toBe(302)
    expect(home.headers.location).toBe('/users/sign_in')
  })

  test('with password sign-in off for the web, the form is gone and a POST is 403', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    const token = await web.csrfTokenFrom('/users/sign_in')
    await configure({ password_authentication_enabled_for_web: false })
    try {
      const page = await web.request('GET', '/users/sign_in')
      expect(page.status).toBe(200)
      expect(page.text).not.toContain('name="user[password]"')
      const res = await web.request('POST', '/users/sign_in', {
        form: true,
        body: { authenticity_token: token, 'user[login]': user.username, 'user[password]': 'password123' },
      })
      expect(res.status).toBe(403)
      expect(res.headers['set-cookie']).toBeUndefined()
      expect((await userRow(user.id)).sign_in_count).toBe(0)
    } finally {
      await configure({ password_authentication_enabled_for_web: true })
    }
  })
})

describe('sign-out and home', () => {
  test('the header form (POST with _method=delete) ends the session and clears the cookie', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    const cookieValue = web.cookie!
    const home = await web.request('GET', '/')
    expect(home.text).toContain('<form method="post" action="/users/sign_out">')
    const token = authenticityTokenOf(home.text)
    const res = await web.request('POST', '/users/sign_out', { form: true, body: { _method: 'delete', authenticity_token: token } })
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/users/sign_in')
    expect(res.headers['set-cookie']).toBe(CLEARED)
    expect(await sessionRows(cookieValue)).toEqual([])
    const replay = await request('GET', '/', { headers: { cookie: `_svc_session=${cookieValue}` } })
    expect(replay.headers.location).toBe('/users/sign_in')
  })

  test('DELETE with X-CSRF-Token works too; without a token it is refused', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    const token = authenticityTokenOf((await web.request('GET', '/')).text)
    const refused = await web.request('DELETE', '/users/sign_out')
    expect(refused.status).toBe(422)
    expect((await web.request('GET', '/')).status).toBe(200)
    const res = await web.request('DELETE', '/users/sign_out', { headers: { 'x-csrf-token': token } })
    expect(res.status).toBe(302)
    expect(res.headers['set-cookie']).toBe(CLEARED)
    expect(web.cookie).toBeNull()
  })

  test('visitors of / are sent to sign in', async () => {
    const res = await request('GET', '/')
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('/users/sign_in')
  })

  test('a session expires after session_expire_delay minutes without use', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await web.signIn(user.username, 'password123')
    server.travel(defaultSettings.session_expire_delay * 60_000 + 1000)
    expect((await web.request('GET', '/')).headers.location).toBe('/users/sign_in')
  })
})

describe('the cookie over HTTPS and across nodes', () => {
  test('is Secure when the instance is reached by https', async () => {
    const https = await startTestServer({ SVC_EXTERNAL_URL: 'https://svc.example.com' })
    try {
      // startTestServer names the instance by its own address; restore the configured one.
      expect(https.config.externalUrl).not.toBe('https://svc.example.com')
      https.config.externalUrl = 'https://svc.example.com'
      const res = await client(https.url)('GET', '/users/sign_in')
      expect(res.headers['set-cookie']).toMatch(/^_svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
    } finally {
      await https.close()
    }
  })

  test('a session started on one node works on another sharing the database', async () => {
    const second = await startTestServer({}, { sharing: server })
    try {
      const user = await createTestUser(server.database.db)
      const web = webClient(server.url)
      await web.signIn(user.username, 'password123')
      const elsewhere = await client(second.url)('GET', '/', { headers: { cookie: web.cookieHeader } })
      expect(elsewhere.status).toBe(200)
      expect(elsewhere.text).toContain(`<strong>@${user.username}</strong>`)
      const api = await client(second.url)('GET', '/api/v4/user', { headers: { cookie: web.cookieHeader } })
      expect(api.status).toBe(200)
      expect(api.body.username).toBe(user.username)
      // Signing out on the second node ends it for the first.
      const token = authenticityTokenOf(elsewhere.text)
      const out = await client(second.url)('DELETE', '/users/sign_out', { headers: { cookie: web.cookieHeader, 'x-csrf-token': token } })
      expect(out.status).toBe(302)
      expect((await web.request('GET', '/')).headers.location).toBe('/users/sign_in')
    } finally {
      await second.close()
    }
  })
})

describe('protected-paths rate limit', () => {
  test('the 11th POST in a minute from one address gets Rack::Attack 429', async () => {
    const limited = await startTestServer()
    try {
      const web = webClient(limited.url)
      const token = await web.csrfTokenFrom('/users/sign_in')
      // A moment 5 s into a minute, so all eleven fall in one window.
      const at = new Date((Math.ceil(Date.now() / 60_000) + 1) * 60_000 + 5000)
      limited.freeze(at)
      const body = { authenticity_token: token, 'user[login]': 'nobody', 'user[password]': 'wrong' }
      for (let i = 1; i <= 10; i++) expect((await web.request('POST', '/users/sign_in', { form: true, body })).status).toBe(200)
      const res = await web.request('POST', '/users/sign_in', { form: true, body })
      const nowSeconds = Math.floor(at.getTime() / 1000)
      const retryAfter = 60 - (nowSeconds % 60)
      expect(res.status).toBe(429)
      expect(res.headers['content-type']).toBe('text/plain')
      expect(res.text).toBe('Retry later\n')
      expect(res.headers['ratelimit-name']).toBe('throttle_unauthenticated_protected_paths')
      expect(res.headers['ratelimit-limit']).toBe('10')
      expect(res.headers['ratelimit-observed']).toBe('11')
      expect(res.headers['ratelimit-remaining']).toBe('0')
      expect(res.headers['ratelimit-reset']).toBe(String(nowSeconds + retryAfter))
      expect(res.headers['ratelimit-resettime']).toBe(new Date((nowSeconds + retryAfter) * 1000).toUTCString())
      expect(res.headers['retry-after']).toBe(String(retryAfter))
      // The limit is on POSTs: the form itself still shows.
      expect((await web.request('GET', '/users/sign_in')).status).toBe(200)
    } finally {
      await limited.close()
    }
  })
})
