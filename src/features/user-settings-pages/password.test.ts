import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf, webClient } from '../sessions/testing.js'
import { settingsClient } from './testing.js'

let server: TestServer
let pages: ReturnType<typeof settingsClient>

beforeAll(async () => {
  server = await startTestServer()
  pages = settingsClient(server)
})
afterAll(() => server.close())

async function digestOf(user: User): Promise<string | null> {
  const row = await server.database.db.selectFrom('users').select('password_digest').where('id', '=', user.id).executeTakeFirstOrThrow()
  return row.password_digest
}

async function failedAttemptsOf(user: User): Promise<number> {
  const row = await server.database.db.selectFrom('users').select('failed_attempts').where('id', '=', user.id).executeTakeFirstOrThrow()
  return row.failed_attempts
}

function change(session: TestSession, current: string, next: string, confirmation = next, token?: string | null) {
  return pages.submit(
    session,
    '/-/user_settings/password',
    [
      ['user[password]', current],
      ['user[new_password]', next],
      ['user[password_confirmation]', confirmation],
    ],
    { method: 'put', token },
  )
}

describe('the password page', () => {
  let user: User
  let session: TestSession

  beforeAll(async () => {
    user = await createTestUser(server.database.db, { username: 'grace', password: 'first-secret-1' })
    session = await createTestSession(server, user)
  })

  test('asks for the current password, the new one and its confirmation', async () => {
    const res = await pages.get(session, '/-/user_settings/password/edit')
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Password · svc</title>')
    expect(res.text).toContain('<a href="/-/user_settings/password/edit" aria-current="page">Password</a>')
    expect(res.text).toContain('<form method="post" action="/-/user_settings/password" class="update-password" accept-charset="UTF-8">')
    expect(res.text).toMatch(
      /<label for="user_password">Current password<\/label>\s*<input\s+type="password"\s+id="user_password"\s+name="user\[password\]"/,
    )
    expect(res.text).toMatch(
      /<label for="user_new_password">New password<\/label>\s*<input\s+type="password"\s+id="user_new_password"\s+name="user\[new_password\]"/,
    )
    expect(res.text).toContain('Minimum length is 8 characters.')
    expect(res.text).toMatch(/<label for="user_password_confirmation">Password confirmation<\/label>/)
    expect(res.text).toContain('<button type="submit" class="primary">Save password</button>')
  })

  test('a visitor is sent to sign in', async () => {
    const res = await pages.get(null, '/-/user_settings/password/edit')
    expect([res.status, res.headers.location]).toEqual([302, '/users/sign_in'])
  })

  test('a wrong current password goes back to the form with GitLab alert, counted as a failed attempt', async () => {
    const before = await digestOf(user)
    const res = await change(session, 'not-my-password', 'second-secret-2')
    expect([res.status, res.headers.location]).toEqual([302, '/-/user_settings/password/edit'])
    const page = await pages.get(session, '/-/user_settings/password/edit')
    expect(flashOf(page.text)).toBe('You must provide a valid current password.')
    expect(await digestOf(user)).toBe(before)
    expect(await failedAttemptsOf(user)).toBe(1)
  })

  test('a new password the rules refuse comes back with the messages beside the fields', async () => {
    const before = await digestOf(user)
    const short = await change(session, 'first-secret-1', 'short', 'shorter')
    expect(short.status).toBe(422)
    expect(short.text).toContain('<li>Password confirmation doesn&#39;t match Password</li>')
    expect(short.text).toContain('<li>Password is too short (minimum is 8 characters)</li>')
    expect(short.text).toContain('<p class="field-error" id="user_new_password_error">Password is too short (minimum is 8 characters)</p>')
    expect(short.text).toContain(
      '<p class="field-error" id="user_password_confirmation_error">Password confirmation doesn&#39;t match Password</p>',
    )
    // Passwords are never written back into the form.
    expect(short.text).not.toContain('value="short"')
    expect(short.text).not.toContain('first-secret-1')
    const blank = await change(session, 'first-secret-1', '', '')
    expect(blank.status).toBe(422)
    expect(blank.text).toContain('<li>Password can&#39;t be blank</li>')
    expect(await digestOf(user)).toBe(before)
  })

  test('the minimum length is the instance setting', async () => {
    const settings = (body: Record<string, unknown>) =>
      client(server.url)('PUT', '/api/v4/application/settings', { token: server.rootToken, body })
    expect((await settings({ minimum_password_length: 12 })).status).toBe(200)
    try {
      expect((await pages.get(session, '/-/user_settings/password/edit')).text).toContain('Minimum length is 12 characters.')
      const res = await change(session, 'first-secret-1', 'eleven-char')
      expect(res.status).toBe(422)
      expect(res.text).toContain('<li>Password is too short (minimum is 12 characters)</li>')
    } finally {
      expect((await settings({ minimum_password_length: 8 })).status).toBe(200)
    }
  })

  test('a form without a valid token is refused and changes nothing', async () => {
    const before = await digestOf(user)
    for (const token of [null, 'forged']) {
      const res = await change(session, 'first-secret-1', 'second-secret-2', 'second-secret-2', token)
      expect(res.status).toBe(422)
      expect(res.text).toContain('The change you requested was rejected.')
    }
    expect(await digestOf(user)).toBe(before)
  })
})

describe('changing the password', () => {
  test('signs the user out everywhere and asks them to sign in again with the new password', async () => {
    const user = await createTestUser(server.database.db, { username: 'hedy', password: 'first-secret-1' })
    const browser = webClient(server.url)
    expect((await browser.signIn('hedy', 'first-secret-1')).status).toBe(302)
    const elsewhere = await createTestSession(server, user)
    const edit = await browser.request('GET', '/-/user_settings/password/edit')
    expect(edit.status).toBe(200)
    const token = /name="authenticity_token" value="([^"]+)"/.exec(edit.text)![1]
    const res = await browser.request('POST', '/-/user_settings/password', {
      form: true,
      body: {
        _method: 'put',
        authenticity_token: token,
        'user[password]': 'first-secret-1',
        'user[new_password]': 'second-secret-2',
        'user[password_confirmation]': 'second-secret-2',
      },
    })
    expect([res.status, res.headers.location]).toEqual([302, '/users/sign_in'])
    const signIn = await browser.request('GET', '/users/sign_in')
    expect(flashOf(signIn.text)).toBe('Password was successfully updated. Please sign in again.')
    // Neither this browser nor another session is signed in any more.
    expect((await browser.request('GET', '/-/user_settings/profile')).headers.location).toBe('/users/sign_in')
    expect((await pages.get(elsewhere, '/-/user_settings/profile')).headers.location).toBe('/users/sign_in')
    const sessions = await server.database.db.selectFrom('sessions').select('id').where('user_id', '=', user.id).execute()
    expect(sessions).toEqual([])
    // The old password no longer signs in; the new one does.
    expect(flashOf((await webClient(server.url).signIn('hedy', 'first-secret-1')).text)).toBe('Invalid login or password.')
    const again = await webClient(server.url).signIn('hedy', 'second-secret-2')
    expect([again.status, again.headers.location]).toEqual([302, '/'])
  })
})
