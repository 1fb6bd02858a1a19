import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf } from '../sessions/testing.js'
import { settingsClient } from './testing.js'

let server: TestServer
let pages: ReturnType<typeof settingsClient>
let user: User
let session: TestSession
const XSS = '<script>alert(1)</script>'

async function stored(): Promise<User> {
  return server.database.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow()
}

beforeAll(async () => {
  server = await startTestServer()
  pages = settingsClient(server)
  user = await createTestUser(server.database.db, { username: 'ada', name: 'Ada', email: 'ada@example.com', location: 'London' })
  session = await createTestSession(server, user)
})
afterAll(() => server.close())

describe('the profile page', () => {
  test('shows the user settings sidebar and the form filled from the user', async () => {
    const res = await pages.get(session, '/-/user_settings/profile')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Edit Profile · svc</title>')
    expect(res.text).toMatch(
      /<nav class="sidebar" aria-label="User settings">\s*<a class="context" href="\/-\/user_settings\/profile">User settings<\/a>/,
    )
    const sidebar = /<nav class="sidebar"[\s\S]*?<\/nav>/.exec(res.text)![0]
    const links = [...sidebar.matchAll(/<li>\s*<a href="(\/-\/[^"]+)" ?(aria-current="page")?>([^<]+)<\/a>/g)].map((m) => [
      m[1],
      m[3],
      m[2] ?? '',
    ])
    expect(links).toEqual([
      ['/-/user_settings/profile', 'Profile', 'aria-current="page"'],
      ['/-/user_settings/password/edit', 'Password', ''],
      ['/-/user_settings/personal_access_tokens', 'Access tokens', ''],
      ['/-/user_settings/applications', 'Applications', ''],
      ['/-/profile/notifications', 'Notifications', ''],
    ])
    expect(res.text).toContain('<form method="post" action="/-/user_settings/profile" class="edit-user" accept-charset="UTF-8">')
    expect(res.text).toContain('<input type="hidden" name="_method" value="put" />')
    expect(res.text).toMatch(
      /<input\s+type="text"\s+id="user_name"\s+name="user\[name\]"\s+value="Ada"\s+required\s+aria-describedby="user_name_help"\s*\/>/,
    )
    expect(res.text).toMatch(/id="user_location"\s+name="user\[location\]"\s+value="London"/)
    expect(res.text).toMatch(/<input type="text" id="user_id" value="\d+" readonly \/>/)
    // The primary address, confirmed, may be shown; nothing is shown by default.
    expect(res.text).toContain('<option value="">Do not show on profile</option>')
    expect(res.text).toContain('<option value="ada@example.com" >ada@example.com</option>')
    expect(res.text).toContain('<a class="button" href="/ada">Cancel</a>')
  })

  test('the top bar offers the settings pages', async () => {
    const res = await pages.get(session, '/')
    expect(res.text).toContain('<li><a href="/-/user_settings/profile">Edit profile</a></li>')
    expect(res.text).toContain('<li><a href="/-/user_settings/personal_access_tokens">Access tokens</a></li>')
    expect(res.text).toContain('<li><a href="/-/profile/notifications">Notifications</a></li>')
  })

  test('a visitor is sent to sign in; the older addresses lead to the page', async () => {
    const visitor = await pages.get(null, '/-/user_settings/profile')
    expect([visitor.status, visitor.headers.location]).toEqual([302, '/users/sign_in'])
    for (const old of ['/-/profile', '/profile']) {
      const res = await pages.get(session, old)
      expect([res.status, res.headers.location]).toEqual([301, '/-/user_settings/profile'])
    }
  })

  test('saves what the form sends and says so on the next page', async () => {
    const res = await pages.submit(
      session,
      '/-/user_settings/profile',
      [
        ['user[name]', 'Ada Lovelace'],
        ['user[pronouns]', 'she/her'],
        ['user[public_email]', 'ada@example.com'],
        ['user[website_url]', 'https://ada.example'],
        ['user[location]', 'Marylebone'],
        ['user[job_title]', 'Analyst'],
        ['user[user_detail_organization]', 'Analytical Engines'],
        ['user[bio]', 'Notes on the engine.'],
        ['user[linkedin]', 'ada'],
        ['user[twitter]', '@ada'],
        ['user[discord]', '123456789012345678'],
        ['user[private_profile]', '0'],
        ['user[private_profile]', '1'],
      ],
      { method: 'put' },
    )
    expect([res.status, res.headers.location]).toEqual([302, '/-/user_settings/profile'])
    const after = await stored()
    expect(after).toMatchObject({
      name: 'Ada Lovelace',
      pronouns: 'she/her',
      public_email: 'ada@example.com',
      website_url: 'https://ada.example',
      location: 'Marylebone',
      job_title: 'Analyst',
      organization: 'Analytical Engines',
      bio: 'Notes on the engine.',
      linkedin: 'ada',
      twitter: '@ada',
      discord: '123456789012345678',
      private_profile: 1,
    })
    const next = await pages.get(session, '/-/user_settings/profile')
    expect(flashOf(next.text)).toBe('Profile was successfully updated')
    expect(next.text).toContain('<option value="ada@example.com" selected>ada@example.com</option>')
    expect(next.text).toMatch(/id="user_private_profile" name="user\[private_profile\]" value="1" checked \/>/)
    // Shown once.
    expect(flashOf((await pages.get(session, '/-/user_settings/profile')).text)).toBeNull()
    // The API shows the same user.
    const api = await pages.get(session, '/api/v4/user')
    expect(JSON.parse(api.text)).toMatchObject({ name: 'Ada Lovelace', public_email: 'ada@example.com', job_title: 'Analyst' })
  })

  test('a refusal comes back with the messages beside their fields and what was typed, escaped', async () => {
    const before = await stored()
    const res = await pages.submit(
      session,
      '/-/user_settings/profile',
      [
        ['user[name]', ''],
        ['user[website_url]', `javascript:${XSS}`],
        ['user[location]', `Paris ${XSS}`],
        ['user[discord]', 'abc'],
      ],
      { method: 'put' },
    )
    expect(res.status).toBe(422)
    expect(res.text).toContain('<div class="flash alert" role="alert" id="error_explanation">')
    expect(res.text).toContain('<li>Name can&#39;t be blank</li>')
    expect(res.text).toContain('<li>Discord must contain only a discord user ID.</li>')
    expect(res.text).toContain('<li>Website url is not a valid URL</li>')
    expect(res.text).toContain('<p class="field-error" id="user_name_error">Name can&#39;t be blank</p>')
    expect(res.text).toMatch(
      /id="user_name"\s+name="user\[name\]"\s+value=""\s+required\s+aria-describedby="user_name_help user_name_error"/,
    )
    expect(res.text).toContain('value="Paris &lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(res.text).not.toContain(XSS)
    expect(await stored()).toEqual(before)
  })

  test('a name with markup is kept as text and shown escaped', async () => {
    const res = await pages.submit(session, '/-/user_settings/profile', [['user[name]', `Ada ${XSS}`]], { method: 'put' })
    expect(res.status).toBe(302)
    expect((await stored()).name).toBe(`Ada ${XSS}`)
    const page = await pages.get(session, '/-/user_settings/profile')
    expect(page.text).toMatch(/id="user_name"\s+name="user\[name\]"\s+value="Ada &lt;script&gt;alert\(1\)&lt;\/script&gt;"/)
    expect(page.text).not.toContain(XSS)
  })

  test('a form without a valid token is refused and changes nothing', async () => {
    const before = await stored()
    for (const token of [null, 'forged']) {
      const res = await pages.submit(session, '/-/user_settings/profile', [['user[name]', 'Mallory']], { method: 'put', token })
      expect(res.status).toBe(422)
      expect(res.text).toContain('The change you requested was rejected.')
    }
    expect(await stored()).toEqual(before)
  })
})
