import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import { createTestGroup, createTestProject, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { createTestSession } from '../../testing/sessions.js'
import { authenticityTokenOf, flashOf, webClient } from '../sessions/testing.js'

let server: TestServer
let db: Db
let admin: User

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  admin = await createTestUser(db, { admin: 1, name: 'Ada Admin' })
})
afterAll(() => server.close())

const api = () => client(`${server.url}/api/v4`)

/** A browser signed in as `user`: it keeps the session cookie it is given, as a browser does. */
async function browserOf(user: User) {
  const session = await createTestSession(server, user)
  const browser = webClient(server.url)
  browser.cookie = session.cookie.slice(session.cookie.indexOf('=') + 1)
  let token = session.csrfToken
  return {
    get: (path: string) => browser.request('GET', path),
    /** A form sent with the page's authenticity token (fields may repeat, as a checkbox after its hidden field does). */
    async send(path: string, fields: [string, string][], options: { token?: string | null } = {}) {
      const withToken = options.token === null ? fields : [['authenticity_token', options.token ?? token] as [string, string], ...fields]
      return browser.request('POST', path, {
        body: new URLSearchParams(withToken).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    },
    /** After the session changed (impersonation), the next form's token comes from a page of the new session. */
    async refreshToken(path = '/') {
      token = authenticityTokenOf((await browser.request('GET', path)).text)
    },
    get cookieHeader() {
      return browser.cookieHeader
    },
  }
}

async function userJson(user: User) {
  const response = await api()('GET', `/users/${user.id}`, { token: server.rootToken })
  expect(response.status).toBe(200)
  return response.body as { state: string; is_admin: boolean }
}

describe('the admin area', () => {
  const pages = [
    '/admin',
    '/admin/users',
    '/admin/projects',
    '/admin/groups',
    '/admin/application_settings/general',
    '/admin/application_settings/network',
    '/admin/background_jobs',
  ]

  test('sends visitors to sign in and answers everyone but administrators with the 404 page', async () => {
    const regular = await createTestUser(db)
    const visitor = webClient(server.url)
    const someone = await browserOf(regular)
    for (const path of [...pages, `/admin/users/${admin.username}`]) {
      const anonymous = await visitor.request('GET', path)
      expect([path, anonymous.status, anonymous.headers.location]).toEqual([path, 302, '/users/sign_in'])
      const refused = await someone.get(path)
      expect([path, refused.status]).toEqual([path, 404])
      expect(refused.text).toContain('404: Page not found')
    }
    const target = await createTestUser(db)
    const block = await someone.send(`/admin/users/${target.username}/block`, [['_method', 'put']])
    expect(block.status).toBe(404)
    expect((await userJson(target)).state).toBe('active')
    const settings = await someone.send('/admin/application_settings', [
      ['_method', 'put'],
      ['page', 'general'],
      ['section', 'js-signup-settings'],
      ['application_setting[signup_enabled]', '0'],
    ])
    expect(settings.status).toBe(404)
    // Only administrators see the way in.
    expect((await someone.get('/')).text).not.toContain('href="/admin"')
    const own = await browserOf(admin)
    for (const path of pages) expect([path, (await own.get(path)).status]).toEqual([path, 200])
    expect((await own.get('/')).text).toContain('<li><a href="/admin">Admin area</a></li>')
  })

  test('the overview counts projects, users, groups and failed jobs, with the latest of each', async () => {
    const group = await createTestGroup(db, { visibility: 'private' })
    const project = await createTestProject(db, { namespace: group, visibility: 'private' })
    const own = await browserOf(admin)
    const page = await own.get('/admin')
    expect(page.text).toContain('<nav class="sidebar" aria-label="Admin area">')
    expect(page.text).toContain('<a href="/admin" aria-current="page">Overview</a>')
    expect(page.text).toContain(`<a class="title" href="/${project.full_path}">${project.full_name}</a>`)
    expect(page.text).toContain(`<a class="title" href="/groups/${group.full_path}">${group.full_name}</a>`)
    expect(page.text).toMatch(/<span class="stat-count">\d+<\/span><span class="stat-label">Users<\/span>/)
  })
})

describe('admin users', () => {
  test('the list has tabs and a search, links each user, and escapes what users wrote', async () => {
    const hostile = await createTestUser(db, { name: '<script>alert(1)</script> Zed' })
    const blocked = await createTestUser(db, { state: 'blocked', name: 'Blocked Bea' })
    const own = await browserOf(admin)
    const all = await own.get('/admin/users')
    expect(all.status).toBe(200)
    expect(all.text).not.toContain('<script>alert(1)')
    expect(all.text).toContain(`<a class="title" href="/admin/users/${hostile.username}">&lt;script&gt;alert(1)&lt;/script&gt; Zed</a>`)
    expect(all.text).toContain('<a href="/admin/users" aria-current="page">All</a>')
    const blockedTab = await own.get('/admin/users?filter=blocked')
    expect(blockedTab.text).toContain(`href="/admin/users/${blocked.username}"`)
    expect(blockedTab.text).toContain('<span class="badge status-triggered">Blocked</span>')
    expect(blockedTab.text).not.toContain(`href="/admin/users/${hostile.username}"`)
    expect(blockedTab.text).toContain('<a href="/admin/users?filter=blocked" aria-current="page">Blocked</a>')
    const admins = await own.get('/admin/users?filter=admins')
    expect(admins.text).toContain(`href="/admin/users/${admin.username}"`)
    expect(admins.text).not.toContain(`href="/admin/users/${blocked.username}"`)
    const found = await own.get(`/admin/users?search_query=${hostile.username}`)
    expect(found.text).toContain(`href="/admin/users/${hostile.username}"`)
    expect(found.text).not.toContain(`href="/admin/users/${blocked.username}"`)
    expect(found.text).toContain(`name="search_query" value="${hostile.username}"`)
    expect((await own.get('/admin/users/no-such-user')).status).toBe(404)
  })

  test('an administrator blocks and unblocks a user, whose sessions end while blocked; the API sees each change', async () => {
    const user = await createTestUser(db, { name: 'Bob <b>' })
    const theirs = await browserOf(user)
    expect((await theirs.get('/')).text).toContain(`@${user.username}`)
    const own = await browserOf(admin)
    const path = `/admin/users/${user.username}`
    const page = await own.get(path)
    expect(page.text).toContain('<h1>Bob &lt;b&gt;</h1>')
    expect(page.text).toMatch(
      new RegExp(
        `<form method="post" action="${path}/block" class="inline"><input type="hidden" name="authenticity_token" value="[^"]+" /><input type="hidden" name="_method" value="put" /><button type="submit" class="danger">Block</button></form>`,
      ),
    )
    expect(page.text).not.toContain('>Unblock</button>')

    const blocked = await own.send(`${path}/block`, [['_method', 'put']])
    expect([blocked.status, blocked.headers.location]).toEqual([302, path])
    const shown = await own.get(path)
    expect(flashOf(shown.text)).toBe('Successfully blocked')
    expect(shown.text).toContain('<dd class="user-state">blocked</dd>')
    expect(shown.text).toContain('>Unblock</button>')
    expect(shown.text).not.toContain('>Block</button>')
    expect((await userJson(user)).state).toBe('blocked')
    // The blocked user's browser is signed out.
    expect((await theirs.get('/')).headers.location).toBe('/users/sign_in')

    await own.send(`${path}/unblock`, [['_method', 'put']])
    expect(flashOf((await own.get(path)).text)).toBe('Successfully unblocked')
    expect((await userJson(user)).state).toBe('active')
    // Twice is refused in GitLab's words.
    await own.send(`${path}/unblock`, [['_method', 'put']])
    expect(flashOf((await own.get(path)).text)).toBe('Error occurred. User was not unblocked')
  })

  test('deactivating follows the API: a user active lately cannot be, a dormant one can, and activates again', async () => {
    const recent = await createTestUser(db, { last_activity_on: new Date().toISOString().slice(0, 10) })
    const dormant = await createTestUser(db)
    const own = await browserOf(admin)
    await own.send(`/admin/users/${recent.username}/deactivate`, [['_method', 'put']])
    expect(flashOf((await own.get(`/admin/users/${recent.username}`)).text)).toBe(
      'The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated',
    )
    expect((await userJson(recent)).state).toBe('active')
    await own.send(`/admin/users/${dormant.username}/deactivate`, [['_method', 'put']])
    const page = await own.get(`/admin/users/${dormant.username}`)
    expect(flashOf(page.text)).toBe('Successfully deactivated')
    expect(page.text).toContain('>Activate</button>')
    expect((await userJson(dormant)).state).toBe('deactivated')
    await own.send(`/admin/users/${dormant.username}/activate`, [['_method', 'put']])
    expect(flashOf((await own.get(`/admin/users/${dormant.username}`)).text)).toBe('Successfully activated')
    expect((await userJson(dormant)).state).toBe('active')
  })

  test('an administrator makes a user an administrator and takes it back; their own page offers neither nor Block', async () => {
    const user = await createTestUser(db)
    const own = await browserOf(admin)
    const path = `/admin/users/${user.username}`
    expect((await own.get(path)).text).toContain('>Make admin</button>')
    await own.send(path, [
      ['_method', 'put'],
      ['user[access_level]', 'admin'],
    ])
    const made = await own.get(path)
    expect(flashOf(made.text)).toBe('User was successfully updated.')
    expect(made.text).toContain('>Remove admin</button>')
    expect((await userJson(user)).is_admin).toBe(true)
    await own.send(path, [
      ['_method', 'put'],
      ['user[access_level]', 'regular'],
    ])
    expect((await userJson(user)).is_admin).toBe(false)

    const self = await own.get(`/admin/users/${admin.username}`)
    expect(self.text).toContain('<span class="badge status-closed">It\'s you!</span>')
    for (const label of ['Block', 'Deactivate', 'Remove admin', 'Impersonate']) expect(self.text).not.toContain(`>${label}</button>`)
    // The server refuses what the page does not offer, in the API's words.
    await own.send(`/admin/users/${admin.username}/block`, [['_method', 'put']])
    expect(flashOf((await own.get(`/admin/users/${admin.username}`)).text)).toBe('The API initiating user cannot be blocked by the API')
    expect((await userJson(admin)).state).toBe('active')
  })

  test('forms without the authenticity token change nothing', async () => {
    const user = await createTestUser(db)
    const own = await browserOf(admin)
    const refused = await own.send(`/admin/users/${user.username}/block`, [['_method', 'put']], { token: null })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain('The change you requested was rejected.')
    const impersonation = await own.send(`/admin/users/${user.username}/impersonate`, [], { token: null })
    expect(impersonation.status).toBe(422)
    expect((await userJson(user)).state).toBe('active')
    expect((await own.get('/admin')).status).toBe(200)
  })
})

describe('impersonation', () => {
  test('an administrator browses as a user with a banner, and stopping gives their own session back', async () => {
    const user = await createTestUser(db, { name: 'Ivy <i>' })
    const own = await browserOf(admin)
    const path = `/admin/users/${user.username}`
    expect((await own.get(path)).text).toMatch(
      /action="[^"]+\/impersonate" class="inline">.*<button type="submit" class="secondary">Impersonate<\/button>/,
    )
    const started = await own.send(`${path}/impersonate`, [])
    expect([started.status, started.headers.location]).toEqual([302, '/'])
    const home = await own.get('/')
    expect(flashOf(home.text)).toBe(`You are now impersonating ${user.username}`)
    expect(home.text).toContain(`<div class="impersonation-banner" role="status">`)
    expect(home.text).toContain(`You are impersonating <strong>@${user.username}</strong>`)
    expect(home.text).toContain(`<li class="menu-header">Impersonating <strong>@${user.username}</strong></li>`)
    expect(home.text).toContain('<form method="post" action="/admin/impersonation" class="stop-impersonating">')
    // The session is the user's: the API with its cookie, and the admin area answers as to them.
    const me = await fetch(`${server.url}/api/v4/user`, { headers: { cookie: own.cookieHeader } })
    expect(((await me.json()) as { username: string }).username).toBe(user.username)
    expect((await own.get('/admin')).status).toBe(404)

    await own.refreshToken()
    const stopped = await own.send('/admin/impersonation', [['_method', 'delete']])
    expect([stopped.status, stopped.headers.location]).toEqual([302, path])
    const back = await own.get(path)
    expect(back.status).toBe(200)
    expect(back.text).not.toContain('impersonation-banner')
    expect(back.text).toContain(`<li class="menu-header">Signed in as <strong>@${admin.username}</strong></li>`)
    // Stopping again: nobody is being impersonated.
    await own.refreshToken(path)
    expect((await own.send('/admin/impersonation', [['_method', 'delete']])).status).toBe(404)
  })

  test('a blocked user, a deactivated user, a bot and oneself cannot be impersonated; turned off, impersonation is not there', async () => {
    const blocked = await createTestUser(db, { state: 'blocked' })
    const deactivated = await createTestUser(db, { state: 'deactivated' })
    const bot = await createTestUser(db, { bot: 1 })
    const own = await browserOf(admin)
    const reasons: [User, string][] = [
      [blocked, 'You cannot impersonate a blocked user'],
      [deactivated, 'You cannot impersonate a user who cannot log in'],
      [bot, 'You cannot impersonate an internal user'],
      [admin, 'You cannot impersonate yourself'],
    ]
    for (const [user, reason] of reasons) {
      const path = `/admin/users/${user.username}`
      const page = await own.get(path)
      expect(page.text).not.toContain('>Impersonate</button>')
      if (user.id !== admin.id) expect(page.text).toContain(`<p class="help impersonation-refused">${reason}</p>`)
      const refused = await own.send(`${path}/impersonate`, [])
      expect([refused.status, refused.headers.location]).toEqual([302, path])
      expect(flashOf((await own.get(path)).text)).toBe(reason)
    }
    expect(
      ((await (await fetch(`${server.url}/api/v4/user`, { headers: { cookie: own.cookieHeader } })).json()) as { username: string })
        .username,
    ).toBe(admin.username)

    const regular = await createTestUser(db)
    const off = await api()('PUT', '/application/settings', { token: server.rootToken, body: { impersonation_enabled: false } })
    expect(off.status).toBe(200)
    try {
      expect((await own.get(`/admin/users/${regular.username}`)).text).not.toContain('Impersonate')
      expect((await own.send(`/admin/users/${regular.username}/impersonate`, [])).status).toBe(404)
    } finally {
      await api()('PUT', '/application/settings', { token: server.rootToken, body: { impersonation_enabled: true } })
    }
  })
})

describe('admin projects and groups', () => {
  test('list every project and group, private ones of others too, with search and visibility tabs, escaped', async () => {
    const group = await createTestGroup(db, { visibility: 'private', name: 'Team <img src=x onerror=alert(1)>' })
    const hidden = await createTestProject(db, { namespace: group, visibility: 'private', name: 'Hidden <b>thing</b>' })
    const open = await createTestProject(db, { namespace: group, visibility: 'public' })
    const own = await browserOf(admin)
    const projects = await own.get('/admin/projects')
    expect(projects.status).toBe(200)
    expect(projects.text).toContain(`<a class="title" href="/${hidden.full_path}">`)
    expect(projects.text).not.toContain('<b>thing</b>')
    const found = await own.get(`/admin/projects?name=${encodeURIComponent('Hidden')}`)
    expect(found.text).toContain(`href="/${hidden.full_path}"`)
    expect(found.text).not.toContain(`href="/${open.full_path}"`)
    const publicOnly = await own.get('/admin/projects?visibility_level=20')
    expect(publicOnly.text).toContain(`href="/${open.full_path}"`)
    expect(publicOnly.text).not.toContain(`href="/${hidden.full_path}"`)
    expect(publicOnly.text).toContain('<a href="/admin/projects?visibility_level=20" aria-current="page">Public</a>')

    const groups = await own.get(`/admin/groups?name=${encodeURIComponent(group.path)}`)
    expect(groups.status).toBe(200)
    expect(groups.text).toContain(`<a class="title" href="/groups/${group.full_path}">Team &lt;img src=x onerror=alert(1)&gt;</a>`)
    expect(groups.text).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(groups.text).not.toContain('<img src=x')
  })
})

describe('admin settings', () => {
  const general = '/admin/application_settings/general'

  function signupForm(values: { enabled: boolean; minimum: string }): [string, string][] {
    return [
      ['_method', 'put'],
      ['page', 'general'],
      ['section', 'js-signup-settings'],
      ['application_setting[signup_enabled]', '0'],
      ...(values.enabled ? [['application_setting[signup_enabled]', '1'] as [string, string]] : []),
      ['application_setting[minimum_password_length]', values.minimum],
    ]
  }

  async function settingsJson() {
    return (await api()('GET', '/application/settings', { token: server.rootToken })).body as Record<string, unknown>
  }

  test('the general page shows the settings in sections, and a section saves through the API service with a notice', async () => {
    const own = await browserOf(admin)
    const page = await own.get(general)
    expect(page.status).toBe(200)
    for (const title of ['Visibility and access controls', 'Account and limit', 'Sign-up restrictions', 'Sign-in restrictions']) {
      expect(page.text).toContain(`>${title}</h2>`)
    }
    expect(page.text).toContain(
      '<input type="text" inputmode="numeric" id="application_setting_minimum_password_length" name="application_setting[minimum_password_length]" value="8" />',
    )
    expect(page.text).toContain(
      '<label for="application_setting_minimum_password_length">Minimum password length (number of characters)</label>',
    )

    const saved = await own.send('/admin/application_settings', signupForm({ enabled: false, minimum: '12' }))
    expect([saved.status, saved.headers.location]).toEqual([302, `${general}#js-signup-settings`])
    const shown = await own.get(general)
    expect(flashOf(shown.text)).toBe('Application settings saved successfully')
    expect(shown.text).toContain('name="application_setting[minimum_password_length]" value="12"')
    expect(await settingsJson()).toMatchObject({ signup_enabled: false, minimum_password_length: 12 })
    await own.send('/admin/application_settings', signupForm({ enabled: true, minimum: '8' }))
    expect(await settingsJson()).toMatchObject({ signup_enabled: true, minimum_password_length: 8 })
  })

  test('a refused section comes back with what was typed and the reasons beside the fields, and saves nothing', async () => {
    const own = await browserOf(admin)
    const tooShort = await own.send('/admin/application_settings', signupForm({ enabled: false, minimum: '3' }))
    expect(tooShort.status).toBe(422)
    expect(tooShort.text).toContain('<li>Minimum password length must be greater than or equal to 8</li>')
    expect(tooShort.text).toContain(
      '<p class="field-error" id="application_setting_minimum_password_length_error">Minimum password length must be greater than or equal to 8</p>',
    )
    expect(tooShort.text).toContain(
      'name="application_setting[minimum_password_length]" value="3" aria-describedby="application_setting_minimum_password_length_error" aria-invalid="true" />',
    )
    expect(tooShort.text).not.toContain(
      'id="application_setting_signup_enabled" name="application_setting[signup_enabled]" value="1" checked',
    )
    const words = await own.send('/admin/application_settings', signupForm({ enabled: true, minimum: 'eight<' }))
    expect(words.status).toBe(422)
    expect(words.text).toContain('<li>Minimum password length is not a number</li>')
    expect(words.text).toContain('value="eight&lt;"')
    expect(await settingsJson()).toMatchObject({ signup_enabled: true, minimum_password_length: 8 })

    const captcha = await own.send('/admin/application_settings', [
      ['_method', 'put'],
      ['page', 'reporting'],
      ['section', 'js-spam-settings'],
      ['application_setting[spam_check_patterns]', '('],
      ['application_setting[recaptcha_enabled]', '0'],
      ['application_setting[recaptcha_enabled]', '1'],
      ['application_setting[recaptcha_site_key]', ''],
      ['application_setting[recaptcha_private_key]', ''],
    ])
    expect(captcha.status).toBe(422)
    expect(captcha.text).toContain('<li>Spam check patterns has an invalid regular expression: (</li>')
    expect(captcha.text).toContain('<li>Recaptcha site key can&#39;t be blank</li>')
    expect((await settingsJson()).recaptcha_enabled).toBe(false)
  })

  test('rate limits and storage weights save from their pages; a form without its token is refused', async () => {
    const own = await browserOf(admin)
    const network = await own.send('/admin/application_settings', [
      ['_method', 'put'],
      ['page', 'network'],
      ['section', 'js-users-api-limits-settings'],
      ['application_setting[users_get_by_id_limit]', '120'],
    ])
    expect(network.headers.location).toBe('/admin/application_settings/network#js-users-api-limits-settings')
    expect((await settingsJson()).users_get_by_id_limit).toBe(120)
    const storage = await own.send('/admin/application_settings', [
      ['_method', 'put'],
      ['page', 'repository'],
      ['section', 'js-repository-storage-settings'],
      ['application_setting[repository_storages_weighted][default]', '150'],
    ])
    expect(storage.status).toBe(422)
    expect(storage.text).toContain('<li>Repository storages weighted value for &#39;default&#39; must be between 0 and 100</li>')
    const forged = await own.send('/admin/application_settings', signupForm({ enabled: false, minimum: '9' }), { token: null })
    expect(forged.status).toBe(422)
    expect(await settingsJson()).toMatchObject({ signup_enabled: true, minimum_password_length: 8, users_get_by_id_limit: 120 })
  })
})

describe('admin background jobs', () => {
  async function failedJob(kind: string, error: string) {
    const at = new Date().toISOString()
    const row = await db
      .insertInto('jobs')
      .values({
        kind,
        payload: '{}',
        state: 'failed',
        attempts: 5,
        max_attempts: 5,
        run_at: at,
        last_error: error,
        created_at: at,
        updated_at: at,
        finished_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    return Number(row.id)
  }

  test('the page counts jobs per kind and state, shows failures escaped, and retries a failed job once', async () => {
    const id = await failedJob('admin-test.flaky', 'could not reach <script>alert(1)</script>')
    const own = await browserOf(admin)
    const page = await own.get('/admin/background_jobs')
    expect(page.status).toBe(200)
    expect(page.text).toMatch(
      /<tr data-kind="admin-test.flaky">\s*<th scope="row"><code>admin-test.flaky<\/code><\/th>\s*<td class="num job-queued">0<\/td>\s*<td class="num job-running">0<\/td>\s*<td class="num job-done">0<\/td>\s*<td class="num job-failed">1<\/td>/,
    )
    expect(page.text).toContain('<pre class="job-error">could not reach &lt;script&gt;alert(1)&lt;/script&gt;</pre>')
    expect(page.text).not.toContain('<script>alert(1)')
    expect(page.text).toContain(`action="/admin/background_jobs/${id}/retry"`)

    const retried = await own.send(`/admin/background_jobs/${id}/retry`, [])
    expect([retried.status, retried.headers.location]).toEqual([302, '/admin/background_jobs'])
    const after = await own.get('/admin/background_jobs')
    expect(flashOf(after.text)).toBe(`Job #${id} (admin-test.flaky) is queued to run again.`)
    expect(after.text).not.toContain(`id="job_${id}"`)
    expect(after.text).toMatch(/<td class="num job-queued">1<\/td>/)
    const job = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect([job.state, job.attempts]).toEqual(['queued', 0])

    await own.send(`/admin/background_jobs/${id}/retry`, [])
    expect(flashOf((await own.get('/admin/background_jobs')).text)).toBe(`Job #${id} has not failed, so it was not retried.`)
    expect((await own.send('/admin/background_jobs/999999999/retry', [])).status).toBe(404)
    const someone = await browserOf(await createTestUser(db))
    const other = await failedJob('admin-test.flaky', 'again')
    expect((await someone.send(`/admin/background_jobs/${other}/retry`, [])).status).toBe(404)
    expect((await own.send(`/admin/background_jobs/${other}/retry`, [], { token: null })).status).toBe(422)
    expect((await db.selectFrom('jobs').select('state').where('id', '=', other).executeTakeFirstOrThrow()).state).toBe('failed')
  })
})
