import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { verifyPassword } from '../../core/secrets.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { NAMESPACE_FORMAT_MESSAGE } from '../namespaces/index.js'
import { upsertSettingRows } from '../settings/store.js'
import { findUserById, findUserByUsername } from './store.js'
import { USER_WITH_ADMIN_KEYS, expectedBasic, gravatarOf } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let root: User
let member: User
let memberToken: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  root = (await findUserByUsername(server.database.db, 'root'))!
  member = await createTestUser(server.database.db, { username: 'member', email: 'member@example.com' })
  memberToken = (await createTestToken(server.database.db, member)).value
})
afterAll(() => server.close())

async function userCount(): Promise<number> {
  const row = await server.database.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

const asRoot = () => ({ token: server.rootToken })

describe('POST /users', () => {
  test('creates a user with the settings defaults and answers UserWithAdmin', async () => {
    const res = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'Jane.Doe@Example.com', username: 'jane', name: 'Jane Doe', password: 'correct-horse', skip_confirmation: true },
    })
    expect(res.status).toBe(201)
    expect(Object.keys(res.body)).toEqual(USER_WITH_ADMIN_KEYS)
    const stored = (await findUserByUsername(server.database.db, 'jane'))!
    expect(res.body).toEqual({
      id: stored.id,
      username: 'jane',
      name: 'Jane Doe',
      state: 'active',
      locked: false,
      avatar_url: gravatarOf('jane.doe@example.com'),
      web_url: `${server.url}/jane`,
      created_at: stored.created_at,
      bio: '',
      location: '',
      public_email: null,
      skype: '',
      linkedin: '',
      twitter: '',
      discord: '',
      website_url: '',
      organization: '',
      job_title: '',
      pronouns: null,
      bot: false,
      work_information: null,
      followers: 0,
      following: 0,
      is_followed: false,
      local_time: null,
      last_sign_in_at: null,
      confirmed_at: stored.created_at,
      last_activity_on: null,
      email: 'jane.doe@example.com',
      theme_id: 3,
      color_scheme_id: 1,
      projects_limit: 100000,
      current_sign_in_at: null,
      identities: [],
      can_create_group: true,
      can_create_project: true,
      two_factor_enabled: false,
      external: false,
      private_profile: false,
      commit_email: 'jane.doe@example.com',
      is_admin: false,
      note: null,
      namespace_id: null,
      created_by: expectedBasic(root, server.url),
      email_reset_offered_at: null,
    })
    expect(await verifyPassword('correct-horse', stored.password_digest!)).toBe(true)
  })

  test('takes every optional attribute, from a form body too', async () => {
    const res = await request('POST', '/api/v4/users', {
      ...asRoot(),
      form: true,
      body: {
        email: 'kim@example.com',
        username: 'kim.lee',
        name: 'Kim Lee',
        password: 'kims-password',
        skip_confirmation: 'true',
        admin: 'true',
        can_create_group: 'false',
        projects_limit: '7',
        bio: 'Writes code',
        location: 'Berlin <b>DE</b>',
        public_email: 'KIM@example.com',
        website_url: 'https://kim.example',
        organization: 'Acme & Sons',
        job_title: 'Engineer',
        pronouns: 'they/them',
        skype: 'kim.skype',
        linkedin: 'kimlee',
        twitter: 'kimtweets',
        discord: '123456789012345678',
        note: 'hired 2026',
        theme_id: '2',
        color_scheme_id: '4',
        private_profile: 'true',
        commit_email: 'kim@example.com',
      },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      username: 'kim.lee',
      is_admin: true,
      can_create_group: false,
      projects_limit: 7,
      bio: 'Writes code',
      location: 'Berlin DE',
      public_email: 'KIM@example.com',
      website_url: 'https://kim.example',
      organization: 'Acme & Sons',
      job_title: 'Engineer',
      work_information: 'Engineer at Acme &amp; Sons',
      pronouns: 'they/them',
      skype: 'kim.skype',
      linkedin: 'kimlee',
      twitter: 'kimtweets',
      discord: '123456789012345678',
      note: 'hired 2026',
      theme_id: 2,
      color_scheme_id: 4,
      private_profile: true,
      commit_email: 'kim@example.com',
    })
  })

  test('external users may create neither groups nor projects; settings give the defaults', async () => {
    const external = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: {
        email: 'ext@example.com',
        username: 'ext',
        name: 'Ext',
        password: 'password1',
        external: true,
        projects_limit: 5,
        can_create_group: true,
      },
    })
    expect(external.status).toBe(201)
    expect(external.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false, can_create_project: false })

    const db = server.database.db
    await upsertSettingRows(
      db,
      { default_projects_limit: 12, can_create_group: false, user_default_external: true, user_defaults_to_private_profile: true },
      new Date().toISOString(),
    )
    server.app.settings.invalidate()
    try {
      const defaulted = await request('POST', '/api/v4/users', {
        ...asRoot(),
        body: { email: 'def@example.com', username: 'defaulted', name: 'Def', password: 'password1' },
      })
      expect(defaulted.body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false, private_profile: true })
      const internal = await request('POST', '/api/v4/users', {
        ...asRoot(),
        body: { email: 'int@example.com', username: 'internal1', name: 'Int', password: 'password1', external: false },
      })
      expect(internal.body).toMatchObject({ external: false, projects_limit: 12, can_create_group: false, private_profile: true })
    } finally {
      await upsertSettingRows(
        db,
        { default_projects_limit: 100000, can_create_group: true, user_default_external: false, user_defaults_to_private_profile: false },
        new Date().toISOString(),
      )
      server.app.settings.invalidate()
    }
  })

  test('a random password is set with force_random_password or reset_password; unconfirmed without skip_confirmation', async () => {
    for (const flag of ['force_random_password', 'reset_password']) {
      const res = await request('POST', '/api/v4/users', {
        ...asRoot(),
        body: { email: `${flag}@example.com`, username: flag.replace(/_/g, '-'), name: 'Random', [flag]: true },
      })
      expect(res.status).toBe(201)
      expect(res.body.confirmed_at).toBeNull()
      const stored = (await findUserById(server.database.db, res.body.id))!
      expect(stored.password_digest).toMatch(/^scrypt\$/)
    }
  })

  test('a missing required attribute is named in the contract shape', async () => {
    const cases: [object, string][] = [
      [{ username: 'x1', name: 'X', password: 'password1' }, 'email'],
      [{ email: 'x1@example.com', username: 'x1', password: 'password1' }, 'name'],
      [{ email: 'x1@example.com', name: 'X', password: 'password1' }, 'username'],
      [{}, 'email'],
    ]
    for (const [body, attribute] of cases) {
      const res = await request('POST', '/api/v4/users', { ...asRoot(), body })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ message: `400 (Bad request) "${attribute}" not given` })
    }
  })

  test('one of password, reset_password or force_random_password is required', async () => {
    const before = await userCount()
    const res = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'np@example.com', username: 'np', name: 'No Password' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      error: 'password, reset_password, force_random_password are missing, at least one parameter must be provided',
    })
    expect(await userCount()).toBe(before)
  })

  test('model validation failures answer every attribute with GitLab messages and write nothing', async () => {
    const before = await userCount()
    const res = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { password: 'pass', email: 'test@example.com', username: 'test!', name: 'test', bio: 'g'.repeat(256), projects_limit: -1 },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      message: {
        password: ['is too short (minimum is 8 characters)'],
        bio: ['is too long (maximum is 255 characters)'],
        projects_limit: ['must be greater than or equal to 0'],
        username: [NAMESPACE_FORMAT_MESSAGE],
      },
    })
    expect(NAMESPACE_FORMAT_MESSAGE).toBe(
      "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.",
    )
    expect(await userCount()).toBe(before)
  })

  test('each rule has its message', async () => {
    const base = { email: 'rule@example.com', username: 'rule', name: 'Rule', password: 'password1' }
    const cases: [object, Record<string, string[]>][] = [
      [{ email: 'not-an-email' }, { email: ['is invalid'] }],
      [{ email: '' }, { email: ["can't be blank"] }],
      [{ name: '' }, { name: ["can't be blank"] }],
      [{ name: 'n'.repeat(256) }, { name: ['is too long (maximum is 255 characters)'] }],
      [{ password: '' }, { password: ["can't be blank"] }],
      [{ password: 'p'.repeat(129) }, { password: ['is too long (maximum is 128 characters)'] }],
      [{ username: 'admin' }, { username: ['admin is a reserved name'] }],
      [{ username: 'Dashboard' }, { username: ['Dashboard is a reserved name'] }],
      [{ username: '-dash' }, { username: [NAMESPACE_FORMAT_MESSAGE] }],
      [{ username: 'repo.git' }, { username: [NAMESPACE_FORMAT_MESSAGE] }],
      [{ username: 'ends.' }, { username: [NAMESPACE_FORMAT_MESSAGE] }],
      [{ username: 'page.json' }, { username: ['ending with a reserved file extension is not allowed.'] }],
      [{ username: '' }, { username: ["can't be blank"] }],
      [{ public_email: 'other@example.com' }, { public_email: ['is not an email you own'] }],
      [{ public_email: 'rule@example.com' }, { public_email: ['is not an email you own'] }],
      [{ commit_email: 'other@example.com', skip_confirmation: true }, { commit_email: ['is not an email you own'] }],
      [
        { theme_id: 50, color_scheme_id: 50 },
        { theme_id: ['50 is not a valid theme'], color_scheme_id: ['50 is not a valid color scheme'] },
      ],
      [{ discord: '123' }, { discord: ['must contain only a discord user ID.'] }],
      [{ website_url: 'not a url' }, { website_url: ['is not a valid URL'] }],
      [{ pronouns: 'p'.repeat(51) }, { pronouns: ['is too long (maximum is 50 characters)'] }],
      [{ job_title: 'j'.repeat(201) }, { job_title: ['is too long (maximum is 200 characters)'] }],
      [{ twitter: 't'.repeat(501) }, { twitter: ['is too long (maximum is 500 characters)'] }],
    ]
    for (const [override, message] of cases) {
      const res = await request('POST', '/api/v4/users', { ...asRoot(), body: { ...base, ...override } })
      expect(res.status, JSON.stringify(override)).toBe(400)
      expect(res.body).toEqual({ message })
    }
    expect(await findUserByUsername(server.database.db, 'rule')).toBeUndefined()
  })

  test('a username may not be a word any GitLab release reserves at the instance root', async () => {
    const base = { email: 'reserved@example.com', name: 'Reserved', password: 'password1' }
    // Each word was in only one release's TOP_LEVEL_ROUTES (older: abuse_reports … u; newer: favicon.png … v2).
    const words = [
      'abuse_reports',
      'apple-touch-icon-precomposed.png',
      'autocomplete',
      'ci',
      'header_logo_dark.png',
      'header_logo_light.png',
      'invites',
      'koding',
      'notification_settings',
      'sent_notifications',
      'u',
      'favicon.png',
      'login',
      'sitemap',
      'sitemap.xml',
      'sitemap.xml.gz',
      'v2',
    ]
    const withExtension = new Set([
      'apple-touch-icon-precomposed.png',
      'header_logo_dark.png',
      'header_logo_light.png',
      'favicon.png',
      'sitemap.xml',
      'sitemap.xml.gz',
    ])
    for (const word of words) {
      const username = word === 'koding' ? 'Koding' : word
      const res = await request('POST', '/api/v4/users', { ...asRoot(), body: { ...base, username } })
      const messages = [`${username} is a reserved name`]
      if (withExtension.has(word)) messages.push('ending with a reserved file extension is not allowed.')
      expect(res.status, username).toBe(400)
      expect(res.body).toEqual({ message: { username: messages } })
    }
    expect(await findUserByUsername(server.database.db, 'login')).toBeUndefined()
  })

  test('the minimum password length comes from the settings', async () => {
    await upsertSettingRows(server.database.db, { minimum_password_length: 12 }, new Date().toISOString())
    server.app.settings.invalidate()
    try {
      const res = await request('POST', '/api/v4/users', {
        ...asRoot(),
        body: { email: 'short@example.com', username: 'short', name: 'Short', password: 'elevenchars' },
      })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ message: { password: ['is too short (minimum is 12 characters)'] } })
    } finally {
      await upsertSettingRows(server.database.db, { minimum_password_length: 8 }, new Date().toISOString())
      server.app.settings.invalidate()
    }
  })

  test('taken e-mails and usernames are 409, case-insensitively, e-mail first', async () => {
    const before = await userCount()
    const email = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'MEMBER@example.com', username: 'Member', name: 'Again', password: 'x' },
    })
    expect(email.status).toBe(409)
    expect(email.body).toEqual({ message: 'Email has already been taken' })
    const username = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'fresh@example.com', username: 'MEMBER', name: 'Again', password: 'password1' },
    })
    expect(username.status).toBe(409)
    expect(username.body).toEqual({ message: 'Username has already been taken' })
    expect(await userCount()).toBe(before)
  })

  test('wrong types are 400 in Grape shape and write nothing', async () => {
    const before = await userCount()
    const base = { email: 'types@example.com', username: 'types', name: 'Types', password: 'password1' }
    const cases: [object, string][] = [
      [{ projects_limit: 'many' }, 'projects_limit is invalid'],
      [{ projects_limit: 1.5 }, 'projects_limit is invalid'],
      [{ admin: 'perhaps' }, 'admin is invalid'],
      [{ external: [true] }, 'external is invalid'],
      [{ name: ['a', 'b'] }, 'name is invalid'],
      [{ email: { address: 'x@example.com' } }, 'email is invalid'],
      [{ theme_id: 'dark', admin: 'x' }, 'admin is invalid, theme_id is invalid'],
    ]
    for (const [override, error] of cases) {
      const res = await request('POST', '/api/v4/users', { ...asRoot(), body: { ...base, ...override } })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error })
    }
    expect(await userCount()).toBe(before)
  })

  test('unknown attributes are ignored', async () => {
    const res = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'unk@example.com', username: 'unknown-attrs', name: 'Unknown', password: 'password1', state: 'blocked', id: 1 },
    })
    expect(res.status).toBe(201)
    expect(res.body.state).toBe('active')
    expect(res.body.id).not.toBe(1)
  })

  test('only administrators create users', async () => {
    const body = { email: 'nope@example.com', username: 'nope', name: 'Nope', password: 'password1' }
    const anonymous = await request('POST', '/api/v4/users', { body })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' })
    const user = await request('POST', '/api/v4/users', { token: memberToken, body })
    expect(user.status).toBe(403)
    expect(user.body).toEqual({ message: '403 Forbidden' })
    const readUser = await createTestToken(server.database.db, root, { scopes: ['read_user', 'read_api'] })
    const scoped = await request('POST', '/api/v4/users', { token: readUser.value, body })
    expect(scoped.status).toBe(403)
    expect(scoped.body.error).toBe('insufficient_scope')
    expect(await findUserByUsername(server.database.db, 'nope')).toBeUndefined()
  })
})

describe('PUT /users/:id', () => {
  let target: User

  beforeAll(async () => {
    target = await createTestUser(server.database.db, { username: 'target', email: 'target@example.com', name: 'Target' })
  })

  test('changes the given attributes and answers UserWithAdmin', async () => {
    const res = await request('PUT', `/api/v4/users/${target.id}`, {
      ...asRoot(),
      body: { name: 'Target Two', bio: 'Updated', location: 'Paris', admin: true },
    })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(USER_WITH_ADMIN_KEYS)
    expect(res.body).toMatchObject({
      id: target.id,
      name: 'Target Two',
      bio: 'Updated',
      location: 'Paris',
      is_admin: true,
      username: 'target',
    })
    const stored = (await findUserById(server.database.db, target.id))!
    expect(stored.updated_at > target.updated_at).toBe(true)
  })

  test('multipart form bodies are read like urlencoded ones', async () => {
    const form = new FormData()
    form.append('bio', 'From a multipart form')
    form.append('private_profile', 'false')
    form.append('twitter', 'plus+sign & more')
    const res = await fetch(`${server.url}/api/v4/users/${target.id}`, {
      method: 'PUT',
      headers: { 'private-token': server.rootToken },
      body: form,
    })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ bio: 'From a multipart form', private_profile: false, twitter: 'plus+sign &amp; more' })
  })

  test('a password set by an administrator expires at once', async () => {
    const res = await request('PUT', `/api/v4/users/${target.id}`, { ...asRoot(), body: { password: 'brand-new-pass' } })
    expect(res.status).toBe(200)
    const stored = (await findUserById(server.database.db, target.id))!
    expect(await verifyPassword('brand-new-pass', stored.password_digest!)).toBe(true)
    expect(stored.password_expires_at).not.toBeNull()
  })

  test('turning a user external takes away group and project creation; turning back restores the defaults', async () => {
    const external = await request('PUT', `/api/v4/users/${target.id}`, { ...asRoot(), body: { external: true } })
    expect(external.body).toMatchObject({ external: true, can_create_group: false, projects_limit: 0 })
    const internal = await request('PUT', `/api/v4/users/${target.id}`, { ...asRoot(), body: { external: false } })
    expect(internal.body).toMatchObject({ external: false, can_create_group: true, projects_limit: 100000 })
  })

  test('e-mail and username conflicts exclude the user themselves', async () => {
    const same = await request('PUT', `/api/v4/users/${target.id}`, {
      ...asRoot(),
      body: { email: 'TARGET@example.com', username: 'Target' },
    })
    expect(same.status).toBe(200)
    expect(same.body.username).toBe('Target')
    const email = await request('PUT', `/api/v4/users/${target.id}`, {
      ...asRoot(),
      body: { email: 'member@example.com', username: 'member' },
    })
    expect(email.status).toBe(409)
    expect(email.body).toEqual({ message: 'Email has already been taken' })
    const username = await request('PUT', `/api/v4/users/${target.id}`, { ...asRoot(), body: { username: 'MEMBER' } })
    expect(username.status).toBe(409)
    expect(username.body).toEqual({ message: 'Username has already been taken' })
  })

  test('invalid values are 400 and change nothing', async () => {
    const before = (await findUserById(server.database.db, target.id))!
    const res = await request('PUT', `/api/v4/users/${target.id}`, {
      ...asRoot(),
      body: { name: 'Changed', username: 'users', projects_limit: -5, password: 'short' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      message: {
        password: ['is too short (minimum is 8 characters)'],
        projects_limit: ['must be greater than or equal to 0'],
        username: ['users is a reserved name'],
      },
    })
    const typed = await request('PUT', `/api/v4/users/${target.id}`, {
      ...asRoot(),
      body: { name: 'Changed', private_profile: 'sometimes' },
    })
    expect(typed.status).toBe(400)
    expect(typed.body).toEqual({ error: 'private_profile is invalid' })
    expect(await findUserById(server.database.db, target.id)).toEqual(before)
  })

  test('public_email may name the confirmed primary e-mail', async () => {
    const res = await request('PUT', `/api/v4/users/${target.id}`, { ...asRoot(), body: { public_email: 'target@example.com' } })
    expect(res.status).toBe(200)
    expect(res.body.public_email).toBe('target@example.com')
    const cleared = await request('PUT', `/api/v4/users/${target.id}`, { ...asRoot(), body: { public_email: '' } })
    expect(cleared.body.public_email).toBeNull()
  })

  test('an empty update changes nothing', async () => {
    const before = (await findUserById(server.database.db, target.id))!
    const res = await request('PUT', `/api/v4/users/${target.id}`, asRoot())
    expect(res.status).toBe(200)
    expect(await findUserById(server.database.db, target.id)).toEqual(before)
  })

  test('unknown users are 404; non-digit ids match no route; only administrators update', async () => {
    const missing = await request('PUT', '/api/v4/users/424242', { ...asRoot(), body: { name: 'x' } })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 User Not Found' })
    const word = await request('PUT', '/api/v4/users/someone', { ...asRoot(), body: { name: 'x' } })
    expect(word.status).toBe(404)
    expect(word.body).toEqual({ error: '404 Not Found' })
    const user = await request('PUT', `/api/v4/users/${target.id}`, { token: memberToken, body: { name: 'x' } })
    expect(user.status).toBe(403)
    expect(user.body).toEqual({ message: '403 Forbidden' })
    const anonymous = await request('PUT', `/api/v4/users/${target.id}`, { body: { name: 'x' } })
    expect(anonymous.status).toBe(401)
  })
})

describe('DELETE /users/:id', () => {
  test('removes the user and their tokens', async () => {
    const doomed = await createTestUser(server.database.db, { username: 'doomed' })
    const token = await createTestToken(server.database.db, doomed)
    const res = await request('DELETE', `/api/v4/users/${doomed.id}`, asRoot())
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect(await findUserById(server.database.db, doomed.id)).toBeUndefined()
    const tokens = await server.database.db.selectFrom('personal_access_tokens').select('id').where('user_id', '=', doomed.id).execute()
    expect(tokens).toEqual([])
    const afterwards = await request('GET', '/api/v4/user', { token: token.value })
    expect(afterwards.status).toBe(401)
    const again = await request('DELETE', `/api/v4/users/${doomed.id}`, asRoot())
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ message: '404 User Not Found' })
  })

  test('users created by the deleted user lose their creator, not their account', async () => {
    const creator = await createTestUser(server.database.db, { username: 'creator', admin: 1 })
    const created = await createTestUser(server.database.db, { username: 'created', created_by_id: creator.id })
    expect((await request('DELETE', `/api/v4/users/${creator.id}`, asRoot())).status).toBe(204)
    const res = await request('GET', `/api/v4/users/${created.id}`, asRoot())
    expect(res.status).toBe(200)
    expect(res.body.created_by).toBeNull()
  })

  test('If-Unmodified-Since before the last change keeps the user (412); after it, the user goes', async () => {
    const user = await createTestUser(server.database.db, { username: 'conditional' })
    const before = new Date(Date.parse(user.updated_at) - 60_000).toUTCString()
    const refused = await request('DELETE', `/api/v4/users/${user.id}`, { ...asRoot(), headers: { 'if-unmodified-since': before } })
    expect(refused.status).toBe(412)
    expect(refused.body).toEqual({ message: '412 Precondition Failed' })
    expect(await findUserById(server.database.db, user.id)).toBeDefined()
    const garbled = await request('DELETE', `/api/v4/users/424242`, { ...asRoot(), headers: { 'if-unmodified-since': 'soon' } })
    expect(garbled.status).toBe(404)
    const after = new Date(Date.parse(user.updated_at) + 60_000).toUTCString()
    const removed = await request('DELETE', `/api/v4/users/${user.id}`, { ...asRoot(), headers: { 'if-unmodified-since': after } })
    expect(removed.status).toBe(204)
  })

  test('only administrators delete users', async () => {
    const res = await request('DELETE', `/api/v4/users/${root.id}`, { token: memberToken })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden' })
    const anonymous = await request('DELETE', `/api/v4/users/${root.id}`)
    expect(anonymous.status).toBe(401)
    const hard = await request('DELETE', `/api/v4/users/${member.id}?hard_delete=maybe`, asRoot())
    expect(hard.status).toBe(400)
    expect(hard.body).toEqual({ error: 'hard_delete is invalid' })
    expect(await findUserById(server.database.db, member.id)).toBeDefined()
  })
})
