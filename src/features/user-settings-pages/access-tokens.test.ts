import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addDays, isoDate } from '../../core/time.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { CONTENT_SECURITY_POLICY } from '../../web/html.js'
import { flashOf } from '../sessions/testing.js'
import { settingsClient } from './testing.js'

const PATH = '/-/user_settings/personal_access_tokens'
const XSS = '<script>alert(1)</script>'

let server: TestServer
let pages: ReturnType<typeof settingsClient>
let api: ReturnType<typeof client>
let user: User
let session: TestSession

beforeAll(async () => {
  server = await startTestServer()
  pages = settingsClient(server)
  api = client(`${server.url}/api/v4`)
  user = await createTestUser(server.database.db, { username: 'linus' })
  session = await createTestSession(server, user)
})
afterAll(() => server.close())

async function tokensOf(who: User) {
  return server.database.db.selectFrom('personal_access_tokens').selectAll().where('user_id', '=', who.id).orderBy('id').execute()
}

function create(fields: [string, string][], token?: string | null, as = session) {
  return pages.submit(as, PATH, fields, { token })
}

describe('the access tokens page', () => {
  test('offers a form with the default and latest expiry dates and each scope with its description', async () => {
    const res = await pages.get(session, PATH)
    expect(res.status).toBe(200)
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(res.text).toContain('<title>Personal access tokens · svc</title>')
    expect(res.text).toContain('<a href="/-/user_settings/personal_access_tokens" aria-current="page">Access tokens</a>')
    expect(res.text).toContain(`<form method="post" action="${PATH}" class="new-access-token" accept-charset="UTF-8">`)
    const today = new Date()
    expect(res.text).toMatch(
      new RegExp(
        `name="personal_access_token\\[expires_at\\]"\\s+value="${isoDate(addDays(today, 30))}"\\s+min="${isoDate(addDays(today, 1))}"\\s+max="${isoDate(addDays(today, 365))}"`,
      ),
    )
    const scopes = [...res.text.matchAll(/name="personal_access_token\[scopes\]\[\]" value="(\w+)"/g)].map((m) => m[1])
    expect(scopes).toContain('api')
    expect(scopes).toContain('read_repository')
    // Administrators' scopes are for administrators.
    expect(scopes).not.toContain('sudo')
    expect(scopes).not.toContain('admin_mode')
    expect(res.text).toContain(
      '<p class="help" id="personal_access_token_scopes_api_help">Grants complete read/write access to the API, including all groups and projects.</p>',
    )
    expect(res.text).toContain('<h2 id="active-tokens-heading">Active personal access tokens (0)</h2>')
    expect(res.text).toContain('<p class="empty">This user has no active personal access tokens.</p>')
  })

  test('an administrator is offered the administrator scopes too', async () => {
    const admin = await createTestUser(server.database.db, { admin: 1 })
    const res = await pages.get(await createTestSession(server, admin), PATH)
    expect(res.text).toContain('value="sudo"')
    expect(res.text).toContain('value="admin_mode"')
  })

  test('a visitor is sent to sign in', async () => {
    const res = await pages.get(null, PATH)
    expect([res.status, res.headers.location]).toEqual([302, '/users/sign_in'])
  })

  test('creates a token and shows its value once, on the next page only', async () => {
    const expiresAt = isoDate(addDays(new Date(), 10))
    const res = await create([
      ['personal_access_token[name]', 'Deploy script'],
      ['personal_access_token[description]', 'For CI'],
      ['personal_access_token[expires_at]', expiresAt],
      ['personal_access_token[scopes][]', 'read_api'],
      ['personal_access_token[scopes][]', 'read_repository'],
    ])
    expect([res.status, res.headers.location]).toEqual([302, PATH])
    // The value is neither in the URL nor in a cookie.
    expect(res.headers['set-cookie']).toBeUndefined()
    const [row] = await tokensOf(user)
    expect(row).toMatchObject({
      name: 'Deploy script',
      description: 'For CI',
      expires_at: expiresAt,
      scopes: '["read_api","read_repository"]',
    })
    const shown = await pages.get(session, PATH)
    expect(flashOf(shown.text)).toBe('Your new personal access token has been created.')
    const value = /id="created-personal-access-token"\s+value="(svcpat-[^"]+)"/.exec(shown.text)?.[1]
    expect(value).toBeDefined()
    expect(shown.text).toContain("Make sure you save it - you won't be able to access it again.")
    // The value is the token: the API takes it.
    const me = await api('GET', '/personal_access_tokens/self', { token: value })
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ id: row.id, name: 'Deploy script', scopes: ['read_api', 'read_repository'] })
    // The list shows it; its value is gone from the page and from the session.
    expect(shown.text).toContain('<h2 id="active-tokens-heading">Active personal access tokens (1)</h2>')
    expect(shown.text).toMatch(new RegExp(`<tr id="personal_access_token_${row.id}">\\s*<td class="token-name">\\s*Deploy script`))
    expect(shown.text).toContain('<td>read_api, read_repository</td>')
    const again = await pages.get(session, PATH)
    expect(again.text).not.toContain(value!)
    expect(again.text).not.toContain('created-personal-access-token')
    const stored = await server.database.db.selectFrom('sessions').select('flash').execute()
    expect(stored.every((s) => !s.flash?.includes(value!))).toBe(true)
  })

  test('without a date the token gets the longest lifetime allowed', async () => {
    const res = await create([
      ['personal_access_token[name]', 'No date'],
      ['personal_access_token[expires_at]', ''],
      ['personal_access_token[scopes][]', 'api'],
    ])
    expect(res.status).toBe(302)
    const row = (await tokensOf(user)).find((t) => t.name === 'No date')!
    expect(row.expires_at).toBe(isoDate(addDays(new Date(), 365)))
    await pages.get(session, PATH)
  })

  test('a refusal comes back beside the form with what was typed, escaped', async () => {
    const before = await tokensOf(user)
    const tooLate = isoDate(addDays(new Date(), 400))
    const res = await create([
      ['personal_access_token[name]', ''],
      ['personal_access_token[expires_at]', tooLate],
    ])
    expect(res.status).toBe(422)
    expect(res.text).toContain('<li>Name can&#39;t be blank</li>')
    expect(res.text).toContain('<li>Scopes can&#39;t be blank</li>')
    expect(res.text).toContain(`<li>Expires at must be before ${isoDate(addDays(new Date(), 365))}</li>`)
    expect(res.text).toContain('<p class="field-error" id="personal_access_token_name_error">Name can&#39;t be blank</p>')
    expect(res.text).toMatch(new RegExp(`name="personal_access_token\\[expires_at\\]"\\s+value="${tooLate}"`))
    const hostile = await create([
      ['personal_access_token[name]', XSS],
      ['personal_access_token[scopes][]', 'api'],
      ['personal_access_token[scopes][]', 'no_such_scope'],
    ])
    expect(hostile.status).toBe(422)
    expect(hostile.text).toContain('<li>Scopes can only contain available scopes</li>')
    expect(hostile.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(hostile.text).toMatch(/value="api" checked/)
    expect(hostile.text).not.toContain(XSS)
    expect(await tokensOf(user)).toEqual(before)
  })

  test('a name with markup is listed as text', async () => {
    expect(
      (
        await create([
          ['personal_access_token[name]', XSS],
          ['personal_access_token[scopes][]', 'api'],
        ])
      ).status,
    ).toBe(302)
    const res = await pages.get(session, PATH)
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(res.text).not.toContain(XSS)
  })

  test('a form without a valid token is refused and makes nothing', async () => {
    const before = await tokensOf(user)
    for (const token of [null, 'forged']) {
      const res = await create(
        [
          ['personal_access_token[name]', 'Forged'],
          ['personal_access_token[scopes][]', 'api'],
        ],
        token,
      )
      expect(res.status).toBe(422)
      expect(res.text).toContain('The change you requested was rejected.')
    }
    expect(await tokensOf(user)).toEqual(before)
  })
})

describe('revoking a token', () => {
  let owner: User
  let ownerSession: TestSession

  beforeAll(async () => {
    owner = await createTestUser(server.database.db, { username: 'margaret' })
    ownerSession = await createTestSession(server, owner)
  })

  test('each active token has Revoke, which asks first', async () => {
    const token = await createTestToken(server.database.db, owner, { name: 'Laptop' })
    const res = await pages.get(ownerSession, PATH)
    expect(res.text).toMatch(
      new RegExp(
        `<details class="confirm">\\s*<summary class="button danger small">Revoke</summary>\\s*<div class="confirm-body">\\s*<p>Are you sure you want to revoke the personal access token &quot;Laptop&quot;\\? This action cannot be undone\\. Any tools that rely on this access token will stop working\\.</p>\\s*<form method="post" action="${PATH}/${token.row.id}/revoke">`,
      ),
    )
  })

  test('revokes one of the user own tokens and says so', async () => {
    const token = await createTestToken(server.database.db, owner, { name: 'Old phone' })
    const res = await pages.submit(ownerSession, `${PATH}/${token.row.id}/revoke`, [], { method: 'put' })
    expect([res.status, res.headers.location]).toEqual([302, PATH])
    const page = await pages.get(ownerSession, PATH)
    expect(flashOf(page.text)).toBe('Revoked personal access token Old phone!')
    expect(page.text).not.toContain(`personal_access_token_${token.row.id}"`)
    expect((await api('GET', '/user', { token: token.value })).status).toBe(401)
  })

  test('another user token, a revoked one or an unknown id is the 404 page, and nothing changes', async () => {
    const others = await createTestToken(server.database.db, user, { name: 'Not yours' })
    const res = await pages.submit(ownerSession, `${PATH}/${others.row.id}/revoke`, [], { method: 'put' })
    expect(res.status).toBe(404)
    expect((await api('GET', '/user', { token: others.value })).status).toBe(200)
    expect((await pages.submit(ownerSession, `${PATH}/999999/revoke`, [], { method: 'put' })).status).toBe(404)
    expect((await pages.submit(ownerSession, `${PATH}/abc/revoke`, [], { method: 'put' })).status).toBe(404)
  })

  test('a form without a valid token is refused and revokes nothing', async () => {
    const token = await createTestToken(server.database.db, owner, { name: 'Kept' })
    const res = await pages.submit(ownerSession, `${PATH}/${token.row.id}/revoke`, [], { method: 'put', token: 'forged' })
    expect(res.status).toBe(422)
    expect((await api('GET', '/user', { token: token.value })).status).toBe(200)
  })
})
