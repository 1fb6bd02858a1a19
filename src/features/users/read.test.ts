import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findUserByUsername } from './store.js'
import {
  USER_BASIC_KEYS,
  USER_DETAILS_WITH_ADMIN_KEYS,
  USER_KEYS,
  USER_PUBLIC_KEYS,
  USER_WITH_ADMIN_KEYS,
  expectedBasic,
  expectedPublic,
} from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let root: User
let alice: User
let aliceToken: string
let bob: User
let bobToken: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  root = (await findUserByUsername(server.database.db, 'root'))!
  alice = await createTestUser(server.database.db, { username: 'alice', email: 'alice@example.com', name: 'Alice Liddell' })
  aliceToken = (await createTestToken(server.database.db, alice)).value
  bob = await createTestUser(server.database.db, {
    username: 'Bob',
    email: 'bob@example.com',
    name: 'Bob Builder',
    private_profile: 1,
    job_title: 'Builder',
    organization: 'Bob & Co',
    created_by_id: root.id,
    note: 'careful',
    commit_email: '_private',
  })
  bobToken = (await createTestToken(server.database.db, bob)).value
})
afterAll(() => server.close())

describe('GET /user', () => {
  test('anonymous callers get 401', async () => {
    const res = await request('GET', '/api/v4/user')
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
  })

  test('a user sees themselves as UserPublic, fields in GitLab order', async () => {
    const res = await request('GET', '/api/v4/user', { token: aliceToken })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    expect(Object.keys(res.body)).toEqual(USER_PUBLIC_KEYS)
    expect(res.body).toEqual(expectedPublic(alice, server.url))
  })

  test('an administrator sees UserWithAdmin', async () => {
    const res = await request('GET', '/api/v4/user', { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(USER_WITH_ADMIN_KEYS)
    expect(res.body).toEqual({
      ...expectedPublic(root, server.url),
      is_admin: true,
      note: null,
      namespace_id: null,
      created_by: null,
      email_reset_offered_at: null,
    })
  })

  test('a private profile is still fully visible to its owner; work information and private commit e-mail are derived', async () => {
    const res = await request('GET', '/api/v4/user', { token: bobToken })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(USER_PUBLIC_KEYS)
    expect(res.body.private_profile).toBe(true)
    expect(res.body.work_information).toBe('Builder at Bob &amp; Co')
    expect(res.body.commit_email).toBe(`${bob.id}-Bob@users.noreply.127.0.0.1`)
  })

  test('tokens with read_user or read_api are accepted; other scopes are refused', async () => {
    for (const scopes of [['read_user'], ['read_api'], ['api']]) {
      const token = await createTestToken(server.database.db, alice, { scopes })
      const res = await request('GET', '/api/v4/user', { token: token.value })
      expect(res.status).toBe(200)
      expect(res.body.username).toBe('alice')
    }
    const narrow = await createTestToken(server.database.db, alice, { scopes: ['read_repository'] })
    const res = await request('GET', '/api/v4/user', { token: narrow.value })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api read_api read_user',
    })
  })

  test('Sudo makes root act as the named user, by username (any case) or id, header or param', async () => {
    const byHeader = await request('GET', '/api/v4/user', { token: server.rootToken, headers: { sudo: 'ALICE' } })
    expect(byHeader.status).toBe(200)
    expect(Object.keys(byHeader.body)).toEqual(USER_PUBLIC_KEYS)
    expect(byHeader.body).toEqual(expectedPublic(alice, server.url))
    const byParam = await request('GET', `/api/v4/user?sudo=${bob.id}`, { token: server.rootToken })
    expect(byParam.status).toBe(200)
    expect(byParam.body.username).toBe('Bob')
  })

  test('Sudo errors: unknown user, non-administrator', async () => {
    const missing = await request('GET', '/api/v4/user', { token: server.rootToken, headers: { sudo: 'nobody' } })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 User with ID or username nobody Not Found' })
    const notAdmin = await request('GET', '/api/v4/user', { token: aliceToken, headers: { sudo: 'Bob' } })
    expect(notAdmin.status).toBe(403)
    expect(notAdmin.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' })
  })
})

describe('GET /users/:id', () => {
  test('administrators get UserDetailsWithAdmin, with the creator as UserBasic', async () => {
    const res = await request('GET', `/api/v4/users/${bob.id}`, { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(USER_DETAILS_WITH_ADMIN_KEYS)
    expect(res.body).toEqual({
      ...expectedPublic(bob, server.url),
      work_information: 'Builder at Bob &amp; Co',
      commit_email: `${bob.id}-Bob@users.noreply.127.0.0.1`,
      is_admin: false,
      note: 'careful',
      namespace_id: null,
      created_by: expectedBasic(root, server.url),
      email_reset_offered_at: null,
      highest_role: 0,
      current_sign_in_ip: null,
      last_sign_in_ip: null,
      sign_in_count: 0,
    })
    expect(Object.keys(res.body.created_by)).toEqual(USER_BASIC_KEYS)
  })

  test('other users get the User entity', async () => {
    const res = await request('GET', `/api/v4/users/${alice.id}`, { token: bobToken })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(USER_KEYS)
    const { email: _e, ...rest } = expectedPublic(alice, server.url)
    expect(res.body).toEqual(Object.fromEntries(Object.entries(rest).filter(([key]) => USER_KEYS.includes(key))))
  })

  test('a private profile hides created_at and follow counts from other users, not from its owner', async () => {
    const other = await request('GET', `/api/v4/users/${bob.id}`, { token: aliceToken })
    expect(other.status).toBe(200)
    expect(Object.keys(other.body)).toEqual(USER_KEYS.filter((k) => !['created_at', 'followers', 'following', 'is_followed'].includes(k)))
    const self = await request('GET', `/api/v4/users/${bob.id}`, { token: bobToken })
    expect(Object.keys(self.body)).toEqual(USER_KEYS)
  })

  test('anonymous callers are refused as in current GitLab', async () => {
    const res = await request('GET', `/api/v4/users/${alice.id}`)
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden - Not authorized!' })
  })

  test('unknown ids are 404 User Not Found, however large', async () => {
    for (const id of ['999999', '99999999999999999999999']) {
      const res = await request('GET', `/api/v4/users/${id}`, { token: aliceToken })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ message: '404 User Not Found' })
    }
  })

  test('ids that are not digits match no route', async () => {
    for (const path of ['/api/v4/users/abc', '/api/v4/users/1ASDF', '/api/v4/users/-1']) {
      const res = await request('GET', path, { token: aliceToken })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: '404 Not Found' })
    }
  })

  test('read_user tokens may read users', async () => {
    const token = await createTestToken(server.database.db, alice, { scopes: ['read_user'] })
    const res = await request('GET', `/api/v4/users/${bob.id}`, { token: token.value })
    expect(res.status).toBe(200)
  })
})
