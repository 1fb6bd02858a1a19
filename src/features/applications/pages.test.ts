import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { digestToken } from '../../core/secrets.js'
import { contextFor } from '../../testing/context.js'
import { createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession, type TestSession } from '../../testing/sessions.js'
import { OAUTH_SCOPES } from '../../core/scopes.js'
import { findApplication, findApplicationById, isApplicationSecret } from './index.js'
import { createInstanceApplication, createOwnApplication } from './service.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const LIST = '/-/user_settings/applications'
const SECRET = /svcoas-[0-9a-f]{64}/g

interface PageResponse {
  status: number
  headers: Headers
  location: string | null
  setCookies: string[]
  text: string
}

/** A browser's request: the session cookie (and any other cookies), a form body as a list of fields. */
async function visit(
  method: string,
  path: string,
  options: { session?: TestSession | null; cookies?: string[]; form?: [string, string][]; accept?: string } = {},
): Promise<PageResponse> {
  const cookies = [...(options.session ? [options.session.cookie] : []), ...(options.cookies ?? [])]
  const headers: Record<string, string> = {}
  if (cookies.length > 0) headers.cookie = cookies.join('; ')
  if (options.accept) headers.accept = options.accept
  let body: string | undefined
  if (options.form) {
    body = new URLSearchParams(options.form).toString()
    headers['content-type'] = 'application/x-www-form-urlencoded'
  }
  const response = await fetch(server.url + path, { method, headers, body, redirect: 'manual' })
  return {
    status: response.status,
    headers: response.headers,
    location: response.headers.get('location'),
    setCookies: response.headers.getSetCookie(),
    text: await response.text(),
  }
}

/** A form post with the session's authenticity token, as the page's own forms send it. */
function submit(session: TestSession, path: string, fields: [string, string][], method?: 'put' | 'delete') {
  const form: [string, string][] = [['authenticity_token', session.csrfToken], ...fields]
  if (method) form.unshift(['_method', method])
  return visit('POST', path, { session, form })
}

function applicationFields(values: { name: string; redirectUri: string; scopes?: string[]; confidential?: boolean }): [string, string][] {
  return [
    ['name', values.name],
    ['redirect_uri', values.redirectUri],
    ['confidential', '0'],
    ...(values.confidential === false ? [] : [['confidential', '1'] as [string, string]]),
    ...(values.scopes ?? []).map((scope): [string, string] => ['scopes[]', scope]),
  ]
}

async function signedIn(overrides: Parameters<typeof createTestUser>[1] = {}): Promise<{ user: User; session: TestSession }> {
  const user = await createTestUser(server.database.db, overrides)
  return { user, session: await createTestSession(server, user) }
}

async function ownApplication(user: User, name = 'My app', scopes = 'api') {
  return createOwnApplication(contextFor(server, user), {
    name,
    redirectUri: 'https://my.example/callback\nhttp://localhost:3000/cb',
    scopes,
    confidential: true,
  })
}

async function applicationsOf(user: User) {
  return server.database.db.selectFrom('oauth_applications').selectAll().where('owner_id', '=', user.id).execute()
}

async function configure(settings: Record<string, unknown>) {
  const res = await client(server.url)('PUT', '/api/v4/application/settings', { token: server.rootToken, body: settings })
  expect(res.status).toBe(200)
}

async function insertToken(values: { user: User; applicationId: number | null; scopes: string; createdAt: string; revoked?: boolean }) {
  return server.database.db
    .insertInto('oauth_access_tokens')
    .values({
      application_id: values.applicationId,
      resource_owner_id: values.user.id,
      token_digest: digestToken(`token-${Math.random()}`),
      refresh_token_digest: digestToken(`refresh-${Math.random()}`),
      scopes: values.scopes,
      expires_in: 7200,
      created_at: values.createdAt,
      revoked_at: values.revoked ? values.createdAt : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

async function insertGrant(user: User, applicationId: number) {
  return server.database.db
    .insertInto('oauth_access_grants')
    .values({
      application_id: applicationId,
      resource_owner_id: user.id,
      code_digest: digestToken(`code-${Math.random()}`),
      redirect_uri: 'https://app.example/cb',
      scopes: 'api',
      expires_in: 600,
      created_at: new Date().toISOString(),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

describe('signing in first', () => {
  test.each([LIST, `${LIST}/1`, `${LIST}/1/edit`])(
    'an anonymous visit to %s goes to the sign-in page and comes back afterwards',
    async (path) => {
      const res = await visit('GET', `${path}?from=test`)
      expect(res.status).toBe(302)
      expect(res.location).toBe('/users/sign_in')
      const cookie = res.setCookies.find((c) => c.startsWith('_svc_session='))!
      const value = cookie.split(';')[0].slice('_svc_session='.length)
      const session = await server.database.db
        .selectFrom('sessions')
        .selectAll()
        .where('session_digest', '=', digestToken(value))
        .executeTakeFirstOrThrow()
      expect(session.user_id).toBeNull()
      expect(session.return_to).toBe(`${path}?from=test`)
    },
  )

  test('a visitor session with a valid token still cannot create: to the sign-in page, nothing written', async () => {
    const visitor = await createTestSession(server, null)
    const before = await server.database.db.selectFrom('oauth_applications').select('id').execute()
    const res = await submit(visitor, LIST, applicationFields({ name: 'x', redirectUri: 'https://x.example/cb' }))
    expect(res.status).toBe(302)
    expect(res.location).toBe('/users/sign_in')
    expect(await server.database.db.selectFrom('oauth_applications').select('id').execute()).toEqual(before)
  })
})

describe('GET /-/user_settings/applications', () => {
  test('shows the form, and empty lists', async () => {
    const { session } = await signedIn()
    const res = await visit('GET', LIST, { session })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.text).toContain('<title>Applications · svc</title>')
    expect(res.text).toContain(`<form method="post" action="${LIST}"`)
    expect(res.text).toMatch(/<input type="hidden" name="authenticity_token" value="[^"]+" \/>/)
    expect(res.text).toContain('name="name"')
    expect(res.text).toMatch(/<textarea id="application_redirect_uri" name="redirect_uri"/)
    expect(res.text).toMatch(/<input type="checkbox" id="application_confidential" name="confidential" value="1" checked/)
    for (const scope of OAUTH_SCOPES) expect(res.text).toContain(`name="scopes[]" value="${scope}"`)
    expect(res.text).not.toMatch(/name="scopes\[\]" value="[^"]+" id="[^"]+" checked/)
    expect(res.text).toContain('Your applications (0)')
    expect(res.text).toContain("You don't have any applications")
    expect(res.text).toContain('Authorized applications (0)')
    expect(res.text).toContain("You don't have any authorized applications")
  })

  test("lists the user's applications (name, callback URLs, scopes, link), not other users'", async () => {
    const { user, session } = await signedIn()
    const mine = await ownApplication(user, 'Mine', 'api read_user')
    const other = await ownApplication(await createTestUser(server.database.db), 'Not mine')
    const res = await visit('GET', LIST, { session })
    expect(res.text).toContain('Your applications (1)')
    expect(res.text).toContain(`<a href="${LIST}/${mine.application.id}">Mine</a>`)
    expect(res.text).toContain('<code>https://my.example/callback</code>')
    expect(res.text).toContain('<code>http://localhost:3000/cb</code>')
    expect(res.text).toContain('<li>api</li>')
    expect(res.text).toContain('<li>read_user</li>')
    expect(res.text).toContain(`href="${LIST}/${mine.application.id}/edit"`)
    expect(res.text).not.toContain('Not mine')
    expect(res.text).not.toContain(`${LIST}/${other.application.id}`)
    // Secrets are never on the list.
    expect(res.text).not.toMatch(SECRET)
  })

  test('names and URIs are escaped', async () => {
    const { user, session } = await signedIn()
    await createOwnApplication(contextFor(server, user), {
      name: '<script>alert("x")</script>',
      redirectUri: "https://x.example/cb?a=1&b='2'",
      scopes: 'api',
      confidential: true,
    })
    const res = await visit('GET', LIST, { session })
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expect(res.text).not.toContain('<script>alert')
    expect(res.text).toContain('https://x.example/cb?a=1&amp;b=&#39;2&#39;')
  })
})

describe('POST /-/user_settings/applications', () => {
  test('creates the application and shows its page with the secret, this once', async () => {
    const { user, session } = await signedIn()
    const res = await submit(
      session,
      LIST,
      applicationFields({
        name: 'Deploy bot',
        redirectUri: 'https://bot.example/cb\r\nhttps://bot.example/cb2',
        scopes: ['api', 'openid'],
      }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const [application] = await applicationsOf(user)
    expect(application).toMatchObject({
      name: 'Deploy bot',
      redirect_uri: 'https://bot.example/cb\nhttps://bot.example/cb2',
      scopes: 'api openid',
      confidential: 1,
      owner_id: user.id,
    })
    const secrets = res.text.match(SECRET)
    expect(secrets).toHaveLength(1)
    expect(isApplicationSecret(application, secrets![0])).toBe(true)
    expect(res.text).toContain('The application was created successfully.')
    expect(res.text).toContain('<h1>Application: Deploy bot</h1>')
    expect(res.text).toContain(`<code id="application_id">${application.uid}</code>`)
    expect(res.text).toContain(`<code id="secret">${secrets![0]}</code>`)
    expect(res.text).toContain('This is the only time the secret is accessible.')

    const later = await visit('GET', `${LIST}/${application.id}`, { session })
    expect(later.status).toBe(200)
    expect(later.text).toContain(`<code id="application_id">${application.uid}</code>`)
    expect(later.text).not.toMatch(SECRET)
    expect(later.text).toContain('The secret is only available when you create the application or renew the secret.')
    expect(later.text).toContain(`action="${LIST}/${application.id}/renew"`)
    expect(later.text).toContain('<code>https://bot.example/cb2</code>')
    expect(later.text).toContain('<li>openid</li>')
    expect(later.text).toMatch(/<th>Confidential<\/th>\s*<td>Yes<\/td>/)
  })

  test('an unchecked confidential box and no scopes: a public application with no scopes of its own', async () => {
    const { user, session } = await signedIn()
    const res = await submit(
      session,
      LIST,
      applicationFields({ name: 'SPA', redirectUri: 'http://localhost:5173/cb', confidential: false }),
    )
    expect(res.status).toBe(200)
    const [application] = await applicationsOf(user)
    expect(application).toMatchObject({ confidential: 0, scopes: '' })
    expect(res.text).toMatch(/<th>Confidential<\/th>\s*<td>No<\/td>/)
  })

  test('GitLab form field names are read too', async () => {
    const { user, session } = await signedIn()
    const res = await submit(session, LIST, [
      ['doorkeeper_application[name]', 'Nested'],
      ['doorkeeper_application[redirect_uri]', 'https://nested.example/cb'],
      ['doorkeeper_application[scopes][]', 'read_api'],
      ['doorkeeper_application[confidential]', '0'],
    ])
    expect(res.status).toBe(200)
    expect(await applicationsOf(user)).toMatchObject([{ name: 'Nested', scopes: 'read_api', confidential: 0 }])
  })

  test('errors re-render the form with the messages and the values given; nothing is written', async () => {
    const { user, session } = await signedIn()
    const res = await submit(
      session,
      LIST,
      applicationFields({
        name: '<b>kept</b>',
        redirectUri: '/relative\nhttps://ok.example/cb#frag',
        scopes: ['read_user', 'bogus'],
        confidential: false,
      }),
    )
    expect(res.status).toBe(200)
    expect(res.text).toContain('The form contains the following errors:')
    expect(res.text).toContain('<li>Redirect URI must be an absolute URI.</li>')
    expect(res.text).toContain('<li>Redirect URI cannot contain a fragment.</li>')
    expect(res.text).toContain('<li>Scopes doesn&#39;t match configured on the server.</li>')
    expect(res.text).toContain('value="&lt;b&gt;kept&lt;/b&gt;"')
    expect(res.text).toContain('>/relative\nhttps://ok.example/cb#frag</textarea>')
    expect(res.text).toMatch(/name="scopes\[\]" value="read_user" id="application_scopes_read_user" checked/)
    expect(res.text).toMatch(/name="scopes\[\]" value="api" id="application_scopes_api" aria-describedby="application_scopes_api_help" \/>/)
    expect(res.text).toMatch(/name="confidential" value="1" \/>/)
    expect(await applicationsOf(user)).toEqual([])

    const blank = await submit(session, LIST, applicationFields({ name: ' ', redirectUri: '' }))
    expect(blank.status).toBe(200)
    expect(blank.text).toContain('<li>Name can&#39;t be blank</li>')
    expect(blank.text).toContain('<li>Redirect URI can&#39;t be blank</li>')
    expect(await applicationsOf(user)).toEqual([])
  })

  test('without a valid authenticity token: 422 and nothing is created', async () => {
    const { user, session } = await signedIn()
    const fields = applicationFields({ name: 'Forged', redirectUri: 'https://forged.example/cb', scopes: ['api'] })
    const missing = await visit('POST', LIST, { session, form: fields })
    expect(missing.status).toBe(422)
    expect(missing.text).toContain('The change you requested was rejected.')
    const other = await createTestSession(server, user)
    const wrong = await visit('POST', LIST, { session, form: [['authenticity_token', `${other.csrfToken}x`], ...fields] })
    expect(wrong.status).toBe(422)
    const foreign = await visit('POST', LIST, { session, form: [['authenticity_token', other.csrfToken], ...fields] })
    expect(foreign.status).toBe(422)
    expect(await applicationsOf(user)).toEqual([])
  })

  test('while users may not register applications: no form, creating returns to the list; administrators still may', async () => {
    await configure({ user_oauth_applications: false })
    try {
      const { user, session } = await signedIn()
      const page = await visit('GET', LIST, { session })
      expect(page.status).toBe(200)
      expect(page.text).toContain('Manage applications that you&#39;ve authorized to use your account.')
      expect(page.text).not.toContain('name="redirect_uri"')
      expect(page.text).toContain('Authorized applications (0)')
      const res = await submit(session, LIST, applicationFields({ name: 'No', redirectUri: 'https://no.example/cb' }))
      expect(res.status).toBe(302)
      expect(res.location).toBe(LIST)
      expect(await applicationsOf(user)).toEqual([])

      const admin = await signedIn({ admin: 1 })
      expect((await visit('GET', LIST, { session: admin.session })).text).toContain('name="redirect_uri"')
      const created = await submit(admin.session, LIST, applicationFields({ name: 'Yes', redirectUri: 'https://yes.example/cb' }))
      expect(created.status).toBe(200)
      expect(await applicationsOf(admin.user)).toHaveLength(1)
    } finally {
      await configure({ user_oauth_applications: true })
    }
  })
})

describe("one's own applications only", () => {
  test("another user's application is a 404 page for every action, and stays as it was", async () => {
    const owner = await createTestUser(server.database.db)
    const { application } = await ownApplication(owner, 'Theirs')
    const { session } = await signedIn()
    const path = `${LIST}/${application.id}`
    for (const res of [
      await visit('GET', path, { session }),
      await visit('GET', `${path}/edit`, { session }),
      await submit(session, path, applicationFields({ name: 'Taken', redirectUri: 'https://taken.example/cb' }), 'put'),
      await submit(session, `${path}/renew`, [], 'put'),
      await submit(session, path, [], 'delete'),
    ]) {
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.text).not.toContain('Theirs')
    }
    expect(await findApplicationById(server.database.db, application.id)).toEqual(application)
  })

  test('unknown and malformed ids are 404 pages', async () => {
    const { session } = await signedIn()
    for (const id of ['999999', 'abc', '99999999999']) expect((await visit('GET', `${LIST}/${id}`, { session })).status).toBe(404)
  })
})

describe('edit, renew and delete', () => {
  test('the edit form holds the current values; saving redirects to the page with a notice', async () => {
    const { user, session } = await signedIn()
    const { application } = await ownApplication(user, 'Before', 'api read_user')
    const path = `${LIST}/${application.id}`
    const form = await visit('GET', `${path}/edit`, { session })
    expect(form.status).toBe(200)
    expect(form.text).toContain(`<form method="post" action="${path}"`)
    expect(form.text).toContain('<input type="hidden" name="_method" value="put" />')
    expect(form.text).toContain('value="Before"')
    expect(form.text).toContain('>https://my.example/callback\nhttp://localhost:3000/cb</textarea>')
    expect(form.text).toMatch(/value="read_user" id="application_scopes_read_user" checked/)

    const saved = await submit(
      session,
      path,
      applicationFields({ name: 'After', redirectUri: 'https://after.example/cb', scopes: ['read_api'], confidential: false }),
      'put',
    )
    expect(saved.status).toBe(302)
    expect(saved.location).toBe(path)
    expect(await findApplicationById(server.database.db, application.id)).toMatchObject({
      name: 'After',
      redirect_uri: 'https://after.example/cb',
      scopes: 'read_api',
      confidential: 0,
      uid: application.uid,
      secret_digest: application.secret_digest,
    })
    const shown = await visit('GET', path, { session })
    expect(shown.text).toContain('<div class="flash notice" role="alert">The application was updated successfully.</div>')
    // Shown once.
    expect((await visit('GET', path, { session })).text).not.toContain('The application was updated successfully.')
  })

  test('an invalid edit re-renders the edit form with the errors and changes nothing', async () => {
    const { user, session } = await signedIn()
    const { application } = await ownApplication(user, 'Unchanged')
    const res = await submit(session, `${LIST}/${application.id}`, applicationFields({ name: 'New', redirectUri: 'data://x' }), 'put')
    expect(res.status).toBe(200)
    expect(res.text).toContain('<h1>Edit application</h1>')
    expect(res.text).toContain('<li>Redirect URI is forbidden by the server.</li>')
    expect(res.text).toContain('value="New"')
    expect(await findApplicationById(server.database.db, application.id)).toEqual(application)
  })

  test('renewing shows the new secret once; the old one stops working', async () => {
    const { user, session } = await signedIn()
    const created = await ownApplication(user)
    const res = await submit(session, `${LIST}/${created.application.id}/renew`, [], 'put')
    expect(res.status).toBe(200)
    const [secret] = res.text.match(SECRET)!
    expect(secret).not.toBe(created.secret)
    expect(res.text).toContain(`<code id="secret">${secret}</code>`)
    expect(res.text).toContain('Application secret was successfully updated.')
    const stored = await findApplication(server.database.db, created.application.uid)
    expect(isApplicationSecret(stored!, secret)).toBe(true)
    expect(isApplicationSecret(stored!, created.secret)).toBe(false)

    // GitLab's page asks for JSON.
    const json = await visit('POST', `${LIST}/${created.application.id}/renew`, {
      session,
      accept: 'application/json',
      form: [
        ['_method', 'put'],
        ['authenticity_token', session.csrfToken],
      ],
    })
    expect(json.status).toBe(200)
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const body = JSON.parse(json.text) as { secret: string }
    expect(Object.keys(body)).toEqual(['secret'])
    expect(isApplicationSecret((await findApplication(server.database.db, created.application.uid))!, body.secret)).toBe(true)
  })

  test('deleting returns to the list with a notice; its tokens go with it', async () => {
    const { user, session } = await signedIn()
    const { application } = await ownApplication(user, 'Doomed')
    const other = await createTestUser(server.database.db)
    await insertToken({ user: other, applicationId: application.id, scopes: 'api', createdAt: new Date().toISOString() })
    const res = await submit(session, `${LIST}/${application.id}`, [], 'delete')
    expect(res.status).toBe(302)
    expect(res.location).toBe(LIST)
    expect(await findApplicationById(server.database.db, application.id)).toBeNull()
    expect(
      await server.database.db.selectFrom('oauth_access_tokens').select('id').where('application_id', '=', application.id).execute(),
    ).toEqual([])
    const list = await visit('GET', LIST, { session })
    expect(list.text).toContain('<div class="flash notice" role="alert">The application was deleted successfully.</div>')
    expect(list.text).not.toContain('Doomed')
  })

  test('a delete without the authenticity token is refused with 422', async () => {
    const { user, session } = await signedIn()
    const { application } = await ownApplication(user)
    const res = await visit('POST', `${LIST}/${application.id}`, { session, form: [['_method', 'delete']] })
    expect(res.status).toBe(422)
    expect(await findApplicationById(server.database.db, application.id)).not.toBeNull()
  })
})

describe('authorized applications', () => {
  test('lists each application the user let in (newest token in force), and revoking takes back every token and code', async () => {
    const { user, session } = await signedIn()
    const admin = contextFor(server, await createTestUser(server.database.db, { admin: 1 }))
    const chat = await createInstanceApplication(admin, {
      name: 'Chat <ops>',
      redirectUri: 'https://chat.example/cb',
      scopes: 'api read_user',
      confidential: true,
    })
    const wiki = await createInstanceApplication(admin, {
      name: 'Wiki',
      redirectUri: 'https://wiki.example/cb',
      scopes: 'api',
      confidential: true,
    })
    const old = await createInstanceApplication(admin, {
      name: 'Old',
      redirectUri: 'https://old.example/cb',
      scopes: 'api',
      confidential: true,
    })
    await insertToken({ user, applicationId: chat.application.id, scopes: 'api', createdAt: '2026-01-01T10:00:00.000Z' })
    await insertToken({ user, applicationId: chat.application.id, scopes: 'read_user', createdAt: '2026-01-02T11:30:00.000Z' })
    await insertToken({ user, applicationId: wiki.application.id, scopes: 'api', createdAt: '2026-01-03T00:00:00.000Z' })
    await insertToken({ user, applicationId: old.application.id, scopes: 'api', createdAt: '2026-01-01T00:00:00.000Z', revoked: true })
    const grant = await insertGrant(user, chat.application.id)
    const someoneElse = await createTestUser(server.database.db)
    const theirs = await insertToken({
      user: someoneElse,
      applicationId: chat.application.id,
      scopes: 'api',
      createdAt: '2026-01-01T00:00:00.000Z',
    })

    const page = await visit('GET', LIST, { session })
    expect(page.text).toContain('Authorized applications (2)')
    expect(page.text).toContain('<td>Chat &lt;ops&gt;</td>')
    expect(page.text).toContain('<td>Wiki</td>')
    expect(page.text).not.toContain('<td>Old</td>')
    expect(page.text).toContain('<time datetime="2026-01-02T11:30:00.000Z">2026-01-02 11:30:00 UTC</time>')
    expect(page.text).toMatch(/2026-01-02 11:30:00 UTC<\/time><\/td>\s*<td>read_user<\/td>/)
    expect(page.text).toContain(`action="/oauth/authorized_applications/${chat.application.id}"`)
    // Wiki (newest) first.
    expect(page.text.indexOf('<td>Wiki</td>')).toBeLessThan(page.text.indexOf('<td>Chat &lt;ops&gt;</td>'))

    const res = await submit(session, `/oauth/authorized_applications/${chat.application.id}`, [], 'delete')
    expect(res.status).toBe(302)
    expect(res.location).toBe(LIST)
    const tokens = await server.database.db
      .selectFrom('oauth_access_tokens')
      .select(['resource_owner_id', 'application_id', 'revoked_at'])
      .where('application_id', '=', chat.application.id)
      .execute()
    expect(tokens.filter((t) => t.resource_owner_id === user.id).every((t) => t.revoked_at !== null)).toBe(true)
    const grantRow = await server.database.db
      .selectFrom('oauth_access_grants')
      .selectAll()
      .where('id', '=', grant.id)
      .executeTakeFirstOrThrow()
    expect(grantRow.revoked_at).not.toBeNull()
    const theirsRow = await server.database.db
      .selectFrom('oauth_access_tokens')
      .selectAll()
      .where('id', '=', theirs.id)
      .executeTakeFirstOrThrow()
    expect(theirsRow.revoked_at).toBeNull()

    const after = await visit('GET', LIST, { session })
    expect(after.text).toContain('<div class="flash notice" role="alert">The application was revoked access.</div>')
    expect(after.text).toContain('Authorized applications (1)')
    expect(after.text).not.toContain('Chat &lt;ops&gt;')
  })

  test('a token given without an application is listed as anonymous and revoked by its id; nobody else can revoke it', async () => {
    const { user, session } = await signedIn()
    const token = await insertToken({ user, applicationId: null, scopes: 'api', createdAt: '2026-02-01T00:00:00.000Z' })
    const page = await visit('GET', LIST, { session })
    expect(page.text).toContain('Anonymous')
    expect(page.text).toContain(`action="/oauth/authorized_applications/0?token_id=${token.id}"`)

    const intruder = await signedIn()
    const refused = await submit(intruder.session, `/oauth/authorized_applications/0?token_id=${token.id}`, [], 'delete')
    expect(refused.status).toBe(404)

    const res = await submit(session, `/oauth/authorized_applications/0?token_id=${token.id}`, [], 'delete')
    expect(res.status).toBe(302)
    const row = await server.database.db.selectFrom('oauth_access_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow()
    expect(row.revoked_at).not.toBeNull()
    expect((await visit('GET', LIST, { session })).text).toContain('Authorized applications (0)')
  })

  test('revoking needs a signed-in user and the authenticity token', async () => {
    const { user, session } = await signedIn()
    const admin = contextFor(server, await createTestUser(server.database.db, { admin: 1 }))
    const app = await createInstanceApplication(admin, {
      name: 'Kept',
      redirectUri: 'https://kept.example/cb',
      scopes: 'api',
      confidential: true,
    })
    const token = await insertToken({ user, applicationId: app.application.id, scopes: 'api', createdAt: new Date().toISOString() })
    const forged = await visit('POST', `/oauth/authorized_applications/${app.application.id}`, { session, form: [['_method', 'delete']] })
    expect(forged.status).toBe(422)
    const anonymous = await visit('POST', `/oauth/authorized_applications/${app.application.id}`, { form: [['_method', 'delete']] })
    expect(anonymous.status).toBe(422)
    const row = await server.database.db.selectFrom('oauth_access_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow()
    expect(row.revoked_at).toBeNull()
  })
})

describe('the applications page among the user settings', () => {
  test('has the user settings sidebar, each scope with its description, and Destroy and Revoke that ask first without script', async () => {
    const { user, session } = await signedIn()
    const own = await ownApplication(user, 'Mine')
    const admin = contextFor(server, await createTestUser(server.database.db, { admin: 1 }))
    const other = await createInstanceApplication(admin, {
      name: 'Wiki',
      redirectUri: 'https://wiki.example/cb',
      scopes: 'api',
      confidential: true,
    })
    await insertToken({ user, applicationId: other.application.id, scopes: 'api', createdAt: new Date().toISOString() })
    const page = await visit('GET', LIST, { session })
    expect(page.text).toContain('<a href="/-/user_settings/applications" aria-current="page">Applications</a>')
    expect(page.text).toMatch(/<nav class="sidebar" aria-label="User settings">/)
    expect(page.text).toContain(
      '<p class="help" id="application_scopes_read_user_help">Grants read-only access to the authenticated user&#39;s profile through the /user API endpoint, which includes username, public email, and full name. Also grants access to read-only API endpoints under /users.</p>',
    )
    expect(page.text).toMatch(
      new RegExp(
        `<details class="confirm">\\s*<summary class="button danger small">Destroy</summary>\\s*<div class="confirm-body">\\s*<p>Are you sure\\?</p>\\s*<form method="post" action="${LIST}/${own.application.id}">`,
      ),
    )
    expect(page.text).toMatch(
      new RegExp(
        `<summary class="button danger small">Revoke</summary>\\s*<div class="confirm-body">\\s*<p>Are you sure\\?</p>\\s*<form method="post" action="/oauth/authorized_applications/${other.application.id}">`,
      ),
    )
    expect(page.text).not.toMatch(/ on[a-z]+="/)
  })
})
