import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Settings } from '../../core/settings.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { headersOf, partOf, startSmtpSink, type ReceivedMail, type SmtpSink } from '../mail/testing.js'
import { INVALID_LOGIN_MESSAGE } from './password.js'
import {
  ALREADY_SIGNED_IN,
  NO_TOKEN,
  PASSWORD_AUTHENTICATION_UNAVAILABLE,
  PASSWORD_CHANGED,
  RESET_EXPIRED,
  RESET_SENT,
  UNLOCK_SENT,
  UNLOCK_TOKEN_INVALID,
  UNLOCKED,
} from './recovery-pages.js'
import { authenticityTokenOf, flashOf, webClient } from './testing.js'

let sink: SmtpSink
let server: TestServer
let request: ReturnType<typeof client>

async function configure(settings: Partial<Settings>) {
  const res = await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: settings })
  expect(res.status).toBe(200)
}

beforeAll(async () => {
  sink = await startSmtpSink()
  server = await startTestServer({ SVC_SMTP_URL: sink.url })
  request = client(server.url)
  await configure({ throttle_protected_paths_enabled: false })
})
afterAll(async () => {
  await server?.close()
  await sink?.close()
})
beforeEach(() => {
  sink.received.length = 0
})

/** The mails the server's jobs send now. */
async function sentMails(): Promise<ReceivedMail[]> {
  await server.runJobs()
  return sink.received.splice(0)
}

/** Follows a redirect with the same client: the page it leads to. */
async function follow(web: ReturnType<typeof webClient>, response: { status: number; headers: Record<string, string> }) {
  expect(response.status).toBe(302)
  return web.request('GET', response.headers.location)
}

async function askForReset(web: ReturnType<typeof webClient>, email: string) {
  const token = await web.csrfTokenFrom('/users/password/new')
  return web.request('POST', '/users/password', { form: true, body: { authenticity_token: token, 'user[email]': email } })
}

async function changePassword(web: ReturnType<typeof webClient>, resetToken: string, password: string, confirmation = password) {
  const page = await web.request('GET', `/users/password/edit?reset_password_token=${encodeURIComponent(resetToken)}`)
  const token = page.status === 200 ? authenticityTokenOf(page.text) : await web.csrfTokenFrom('/users/password/new')
  return web.request('POST', '/users/password', {
    form: true,
    body: {
      authenticity_token: token,
      _method: 'put',
      'user[reset_password_token]': resetToken,
      'user[password]': password,
      'user[password_confirmation]': confirmation,
    },
  })
}

function linkTokenOf(mail: ReceivedMail, parameter: string): string {
  const match = new RegExp(`\\?${parameter}=([A-Za-z0-9_-]+)`).exec(partOf(mail.raw, 'text/plain'))
  expect(match, `a link with ${parameter} in the mail`).not.toBeNull()
  return match![1]
}

async function userRow(id: number): Promise<User> {
  return server.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

describe('forgotten password', () => {
  test('the sign-in page links to the reset form, which asks for the primary e-mail', async () => {
    const signIn = await request('GET', '/users/sign_in')
    expect(signIn.text).toContain('<a href="/users/password/new">Forgot your password?</a>')
    const res = await request('GET', '/users/password/new?user_email=alice%40example.com')
    expect(res.status).toBe(200)
    expect(res.text).toContain('<title>Reset password · svc</title>')
    expect(res.text).toContain('<form method="post" action="/users/password" accept-charset="UTF-8">')
    expect(res.text).toMatch(/<input\s+type="email"\s+id="user_email"\s+name="user\[email\]"\s+value="alice@example.com"/)
    expect(res.text).toContain('Requires your primary svc email address.')
    expect(res.text).toContain('<button type="submit" class="primary">Reset password</button>')
    expect(res.text).toContain('<a href="/users/sign_in">Sign in</a>')
  })

  test('an unknown address and a known one get the same answer; only the known one gets mail, with a link that works once', async () => {
    const user = await createTestUser(server.database.db, { name: 'Alice <Example>', password: 'old-password' })
    const elsewhere = webClient(server.url)
    expect((await elsewhere.signIn(user.username, 'old-password')).status).toBe(302)

    const web = webClient(server.url)
    const unknown = await askForReset(web, 'nobody@example.com')
    expect(unknown.headers.location).toBe('/users/sign_in')
    expect(flashOf((await follow(web, unknown)).text)).toBe(RESET_SENT)
    expect(await sentMails()).toEqual([])

    const known = await askForReset(web, `  ${user.email.toUpperCase()} `)
    expect(known.headers.location).toBe('/users/sign_in')
    expect(flashOf((await follow(web, known)).text)).toBe(RESET_SENT)
    const [mail, ...others] = await sentMails()
    expect(others).toEqual([])
    expect(mail.to).toEqual([user.email])
    const headers = Object.fromEntries(headersOf(mail.raw))
    expect(headers).toMatchObject({
      From: 'GitLab <gitlab@127.0.0.1>',
      To: user.email,
      'Reply-To': 'GitLab <noreply@127.0.0.1>',
      Subject: 'Reset password instructions',
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
      'X-Mailgun-Suppressions-Bypass': 'true',
    })
    const resetToken = linkTokenOf(mail, 'reset_password_token')
    expect(resetToken).toMatch(/^[A-Za-z0-9_-]{20}$/)
    expect(partOf(mail.raw, 'text/plain')).toBe(
      [
        'Hello, Alice <Example>!',
        '',
        `Someone, hopefully you, has requested to reset the password for your svc account on ${server.url}.`,
        '',
        'If you did not perform this request, you can safely ignore this email.',
        '',
        'Otherwise, click the link below to complete the process:',
        '',
        `${server.url}/users/password/edit?reset_password_token=${resetToken}`,
        '',
      ].join('\n'),
    )
    const htmlPart = partOf(mail.raw, 'text/html')
    expect(htmlPart).toContain('Hello, Alice &lt;Example&gt;!')
    expect(htmlPart).toContain(`href="${server.url}/users/password/edit?reset_password_token=${resetToken}"`)
    // Only the link's digest is kept.
    const stored = await server.database.db.selectFrom('account_tokens').selectAll().where('user_id', '=', user.id).execute()
    expect(stored.map((row) => row.purpose)).toEqual(['reset_password'])
    expect(stored[0].token_digest).not.toContain(resetToken)

    const edit = await web.request('GET', `/users/password/edit?reset_password_token=${resetToken}`)
    expect(edit.status).toBe(200)
    expect(edit.text).toContain('<title>Change your password · svc</title>')
    expect(edit.text).toContain(`<input type="hidden" name="user[reset_password_token]" value="${resetToken}" />`)
    expect(edit.text).toContain('Minimum length is 8 characters.')

    const mismatch = await changePassword(web, resetToken, 'new-password-1', 'new-password-2')
    expect(mismatch.status).toBe(200)
    expect(mismatch.text).toContain('<li>Password confirmation doesn&#39;t match Password</li>')
    const short = await changePassword(web, resetToken, 'short')
    expect(short.text).toContain('<li>Password is too short (minimum is 8 characters)</li>')

    const changed = await changePassword(web, resetToken, 'new-password-1')
    expect(changed.headers.location).toBe('/users/sign_in')
    expect(flashOf((await follow(web, changed)).text)).toBe(PASSWORD_CHANGED)
    // Every session of the user ended with the old password.
    expect((await elsewhere.request('GET', '/')).headers.location).toBe('/users/sign_in')
    expect(flashOf((await webClient(server.url).signIn(user.username, 'old-password')).text)).toBe(INVALID_LOGIN_MESSAGE)
    expect((await webClient(server.url).signIn(user.username, 'new-password-1')).headers.location).toBe('/')

    // Used once: the link is gone.
    const again = await web.request('GET', `/users/password/edit?reset_password_token=${resetToken}`)
    expect(again.headers.location).toBe('/users/password/new')
    expect(flashOf((await follow(web, again)).text)).toBe(RESET_EXPIRED)
    const reused = await changePassword(web, resetToken, 'another-password')
    expect(reused.status).toBe(200)
    expect(reused.text).toContain('<li>Reset password token is invalid</li>')
    expect(flashOf((await webClient(server.url).signIn(user.username, 'another-password')).text)).toBe(INVALID_LOGIN_MESSAGE)
  })

  test('a link is refused two days after it was sent, and sends its owner to ask again', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await askForReset(web, user.email)
    const resetToken = linkTokenOf((await sentMails())[0], 'reset_password_token')
    server.travel(2 * 24 * 60 * 60_000)
    const edit = await web.request('GET', `/users/password/edit?reset_password_token=${resetToken}`)
    expect(edit.headers.location).toBe(`/users/password/new?user_email=${encodeURIComponent(user.email)}`)
    const page = await follow(web, edit)
    expect(flashOf(page.text)).toBe(RESET_EXPIRED)
    expect(page.text).toContain(`value="${user.email}"`)
    const refused = await changePassword(web, resetToken, 'new-password-1')
    expect(refused.text).toContain('<li>Reset password token has expired, please request a new one</li>')
  })

  test('a second request within a minute sends nothing and says the same; after it, a new link replaces the first', async () => {
    const user = await createTestUser(server.database.db)
    const web = webClient(server.url)
    await askForReset(web, user.email)
    const first = linkTokenOf((await sentMails())[0], 'reset_password_token')
    server.travel(30_000)
    const throttled = await askForReset(web, user.email)
    expect(throttled.headers.location).toBe('/users/sign_in')
    expect(flashOf((await follow(web, throttled)).text)).toBe(RESET_SENT)
    expect(await sentMails()).toEqual([])
    server.travel(31_000)
    await askForReset(web, user.email)
    const second = linkTokenOf((await sentMails())[0], 'reset_password_token')
    expect(second).not.toBe(first)
    expect((await web.request('GET', `/users/password/edit?reset_password_token=${first}`)).headers.location).toBe('/users/password/new')
    expect((await web.request('GET', `/users/password/edit?reset_password_token=${second}`)).status).toBe(200)
  })

  test('the edit page without a token goes back to sign in; signed-in users are not offered a reset', async () => {
    const web = webClient(server.url)
    const bare = await web.request('GET', '/users/password/edit')
    expect(bare.headers.location).toBe('/users/sign_in')
    expect(flashOf((await follow(web, bare)).text)).toBe(NO_TOKEN)

    const user = await createTestUser(server.database.db)
    await web.signIn(user.username, 'password123')
    const signedIn = await web.request('GET', '/users/password/new')
    expect(signedIn.headers.location).toBe('/')
    expect(flashOf((await follow(web, signedIn)).text)).toBe(ALREADY_SIGNED_IN)
  })

  test('with password authentication off, a request is refused and nothing is sent', async () => {
    const user = await createTestUser(server.database.db)
    await configure({ password_authentication_enabled_for_web: false, password_authentication_enabled_for_git: false })
    try {
      const web = webClient(server.url)
      const res = await askForReset(web, user.email)
      expect(res.headers.location).toBe('/users/sign_in')
      expect(flashOf((await follow(web, res)).text)).toBe(PASSWORD_AUTHENTICATION_UNAVAILABLE)
      expect(await sentMails()).toEqual([])
    } finally {
      await configure({ password_authentication_enabled_for_web: true, password_authentication_enabled_for_git: true })
    }
  })

  test('requests count against the protected-paths rate limit: the 11th POST in a minute gets 429', async () => {
    const limited = await startTestServer()
    try {
      const web = webClient(limited.url)
      const token = await web.csrfTokenFrom('/users/password/new')
      limited.freeze(new Date((Math.ceil(Date.now() / 60_000) + 1) * 60_000 + 5000))
      const body = { authenticity_token: token, 'user[email]': 'someone@example.com' }
      for (let i = 1; i <= 10; i++) expect((await web.request('POST', '/users/password', { form: true, body })).status).toBe(302)
      const res = await web.request('POST', '/users/password', { form: true, body })
      expect(res.status).toBe(429)
      expect(res.text).toBe('Retry later\n')
      expect(res.headers['ratelimit-name']).toBe('throttle_unauthenticated_protected_paths')
    } finally {
      await limited.close()
    }
  })
})

describe('locked accounts', () => {
  beforeAll(() => configure({ max_login_attempts: 3, failed_login_attempts_unlock_period_in_minutes: 10 }))
  afterAll(() => configure({ max_login_attempts: null, failed_login_attempts_unlock_period_in_minutes: null }))

  async function lockOut(user: User) {
    for (let i = 0; i < 3; i++) await webClient(server.url).signIn(user.username, 'wrong-password')
    expect((await userRow(user.id)).locked_at).not.toBeNull()
  }

  test('the failed sign-in that locks an account mails an unlock link; the link unlocks it once', async () => {
    const user = await createTestUser(server.database.db, { name: 'Bob' })
    await lockOut(user)
    // Wrong passwords once locked send nothing more.
    await webClient(server.url).signIn(user.username, 'wrong-password')
    const [mail, ...others] = await sentMails()
    expect(others).toEqual([])
    expect(mail.to).toEqual([user.email])
    expect(Object.fromEntries(headersOf(mail.raw))).toMatchObject({ Subject: 'Unlock Instructions', To: user.email })
    const unlockToken = linkTokenOf(mail, 'unlock_token')
    expect(partOf(mail.raw, 'text/plain')).toBe(
      [
        'Hello, Bob!',
        '',
        'Your svc account has been locked due to an excessive number of unsuccessful sign in attempts. You can wait for your account ' +
          'to automatically unlock in 10 minutes or you can click the link below to unlock now.',
        '',
        `${server.url}/users/unlock?unlock_token=${unlockToken}`,
        '',
        'If you did not initiate these sign-in attempts, please reach out to your administrator or enable two-factor authentication (2FA) on your account.',
        '',
      ].join('\n'),
    )
    expect(partOf(mail.raw, 'text/html')).toContain(`href="${server.url}/users/unlock?unlock_token=${unlockToken}"`)
    expect(flashOf((await webClient(server.url).signIn(user.username, 'password123')).text)).toBe(INVALID_LOGIN_MESSAGE)

    const web = webClient(server.url)
    const wrong = await web.request('GET', '/users/unlock?unlock_token=not-a-token')
    expect(wrong.status).toBe(422)
    expect(wrong.text).toContain(`<li>${UNLOCK_TOKEN_INVALID}</li>`)
    expect(wrong.text).toContain('<form method="post" action="/users/unlock" accept-charset="UTF-8">')

    const unlocked = await web.request('GET', `/users/unlock?unlock_token=${unlockToken}`)
    expect(unlocked.headers.location).toBe('/users/sign_in')
    expect(flashOf((await follow(web, unlocked)).text)).toBe(UNLOCKED)
    expect(await userRow(user.id)).toMatchObject({ locked_at: null, failed_attempts: 0 })
    expect((await webClient(server.url).signIn(user.username, 'password123')).headers.location).toBe('/')
    expect((await web.request('GET', `/users/unlock?unlock_token=${unlockToken}`)).status).toBe(422)
  })

  test('a lock lifts itself after the unlock period, and its link goes with it', async () => {
    const user = await createTestUser(server.database.db)
    await lockOut(user)
    const unlockToken = linkTokenOf((await sentMails())[0], 'unlock_token')
    server.travel(10 * 60_000)
    expect((await webClient(server.url).signIn(user.username, 'password123')).headers.location).toBe('/')
    expect((await webClient(server.url).request('GET', `/users/unlock?unlock_token=${unlockToken}`)).status).toBe(422)
  })

  test('a locked account can ask for a new link; an unlocked one gets nothing, with the same notice', async () => {
    const locked = await createTestUser(server.database.db)
    const free = await createTestUser(server.database.db)
    await lockOut(locked)
    const first = linkTokenOf((await sentMails())[0], 'unlock_token')
    const web = webClient(server.url)
    for (const email of [locked.email, free.email, 'nobody@example.com']) {
      const token = await web.csrfTokenFrom('/users/unlock/new')
      const res = await web.request('POST', '/users/unlock', { form: true, body: { authenticity_token: token, 'user[email]': email } })
      expect(res.headers.location).toBe('/users/sign_in')
      expect(flashOf((await follow(web, res)).text)).toBe(UNLOCK_SENT)
    }
    const mails = await sentMails()
    expect(mails.map((mail) => mail.to)).toEqual([[locked.email]])
    const second = linkTokenOf(mails[0], 'unlock_token')
    expect((await web.request('GET', `/users/unlock?unlock_token=${first}`)).status).toBe(422)
    expect((await web.request('GET', `/users/unlock?unlock_token=${second}`)).headers.location).toBe('/users/sign_in')
  })

  test('resetting the password of a locked account unlocks it', async () => {
    const user = await createTestUser(server.database.db)
    await lockOut(user)
    expect((await sentMails()).map((mail) => Object.fromEntries(headersOf(mail.raw)).Subject)).toEqual(['Unlock Instructions'])
    const web = webClient(server.url)
    await askForReset(web, user.email)
    const resetToken = linkTokenOf((await sentMails())[0], 'reset_password_token')
    expect((await changePassword(web, resetToken, 'fresh-password-1')).headers.location).toBe('/users/sign_in')
    expect(await userRow(user.id)).toMatchObject({ locked_at: null, failed_attempts: 0 })
    expect((await webClient(server.url).signIn(user.username, 'fresh-password-1')).headers.location).toBe('/')
  })
})
