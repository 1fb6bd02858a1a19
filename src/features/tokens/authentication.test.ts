import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addDays, isoDate } from '../../core/time.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { upsertSettingRows } from '../settings/store.js'

/**
 * Authentication as the spec's Authentication table and gitlab-behaviour-auth.md section 2 describe it:
 * every way of sending a token, every refusal with its exact body and headers, scopes and sudo.
 */

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

const UNAUTHORIZED = { message: '401 Unauthorized' }
const EXPIRED = 'Token is expired. You can either do re-authorization or token refresh.'
const REVOKED = 'Token was revoked. You have to re-authorize from the user.'
const IMPERSONATION_DISABLED = 'Token is an impersonation token but impersonation was disabled.'
const INSUFFICIENT = 'The request requires higher privileges than provided by the access token.'

function invalidToken(description: string) {
  return {
    body: { error: 'invalid_token', error_description: description },
    header: `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"`,
  }
}

function insufficientScope(scope: string) {
  return { error: 'insufficient_scope', error_description: INSUFFICIENT, scope }
}

function date(days: number): string {
  return isoDate(addDays(new Date(), days))
}

async function setSettings(values: Record<string, unknown>) {
  await upsertSettingRows(server.database.db, values, new Date().toISOString())
  server.app.settings.invalidate()
}

async function user(overrides: Parameters<typeof createTestUser>[1] = {}): Promise<User> {
  return createTestUser(server.database.db, overrides)
}

async function tokenOf(owner: User, options: Parameters<typeof createTestToken>[2] = {}): Promise<string> {
  return (await createTestToken(server.database.db, owner, options)).value
}

/** The names of the tokens the effective user sees in GET /personal_access_tokens (their own, unless admin). */
async function tokenNamesSeen(headers: Record<string, string>, query = ''): Promise<{ status: number; names: string[] }> {
  const res = await request('GET', `/api/v4/personal_access_tokens${query}`, { headers })
  return { status: res.status, names: res.status === 200 ? res.body.map((t: { name: string }) => t.name) : res.body }
}

describe('ways of sending a personal access token, in GitLab order', () => {
  test('PRIVATE-TOKEN header', async () => {
    const value = await tokenOf(await user())
    const res = await request('GET', '/api/v4/version', { headers: { 'PRIVATE-TOKEN': value } })
    expect(res.status).toBe(200)
  })

  test('private_token query parameter, and in a form body', async () => {
    const value = await tokenOf(await user())
    expect((await request('GET', `/api/v4/version?private_token=${value}`)).status).toBe(200)
    const owner = await user({ admin: 1 })
    const adminValue = await tokenOf(owner)
    const target = await user()
    const res = await request('POST', `/api/v4/users/${target.id}/personal_access_tokens`, {
      form: true,
      body: { private_token: adminValue, name: 'via body', scopes: 'api' },
    })
    expect(res.status).toBe(201)
  })

  test('Authorization: Bearer', async () => {
    const value = await tokenOf(await user())
    const res = await request('GET', '/api/v4/version', { headers: { authorization: `Bearer ${value}` } })
    expect(res.status).toBe(200)
  })

  test('the private_token parameter wins over the header, the header over Bearer', async () => {
    const value = await tokenOf(await user())
    const paramWins = await request('GET', `/api/v4/version?private_token=${value}`, { headers: { 'PRIVATE-TOKEN': 'svcpat-wrong' } })
    expect(paramWins.status).toBe(200)
    const badParam = await request('GET', '/api/v4/version?private_token=svcpat-wrong', { headers: { 'PRIVATE-TOKEN': value } })
    expect(badParam.status).toBe(401)
    const headerWins = await request('GET', '/api/v4/version', {
      headers: { 'PRIVATE-TOKEN': value, authorization: 'Bearer svcpat-wrong' },
    })
    expect(headerWins.status).toBe(200)
  })

  test('an impersonation token authenticates as its user, like a personal one', async () => {
    const owner = await user()
    await tokenOf(owner, { name: 'owned' })
    const impersonation = await tokenOf(owner, { name: 'impersonation', impersonation: true })
    const seen = await tokenNamesSeen({ 'private-token': impersonation })
    expect(seen).toEqual({ status: 200, names: ['owned'] })
  })
})

describe('refusals', () => {
  test('no credentials: 401 on an endpoint that needs them', async () => {
    const res = await request('GET', '/api/v4/version')
    expect(res.status).toBe(401)
    expect(res.body).toEqual(UNAUTHORIZED)
    expect(res.headers['www-authenticate']).toBeUndefined()
  })

  test('an unknown token is 401 by every method', async () => {
    const ways: [string, Record<string, string>][] = [
      ['', { 'PRIVATE-TOKEN': 'svcpat-nothing' }],
      ['?private_token=svcpat-nothing', {}],
      ['', { authorization: 'Bearer svcpat-nothing' }],
    ]
    for (const [query, headers] of ways) {
      const res = await request('GET', `/api/v4/version${query}`, { headers })
      expect(res.status).toBe(401)
      expect(res.body).toEqual(UNAUTHORIZED)
      expect(res.headers['content-type']).toBe('application/json')
    }
  })

  test('an unknown token is 401 even where anonymous callers are served', async () => {
    const anonymousCall = await request('GET', '/api/v4/users?username=root')
    expect(anonymousCall.status).toBe(200)
    const res = await request('GET', '/api/v4/users?username=root', { token: 'svcpat-nothing' })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(UNAUTHORIZED)
  })

  test('an expired token: 401 invalid_token with WWW-Authenticate', async () => {
    const value = await tokenOf(await user(), { expiresAt: date(-1) })
    const res = await request('GET', '/api/v4/version', { token: value })
    const expected = invalidToken(EXPIRED)
    expect(res.status).toBe(401)
    expect(res.body).toEqual(expected.body)
    expect(res.headers['www-authenticate']).toBe(expected.header)
    expect(res.headers['content-type']).toBe('application/json')
  })

  test('a token expires at 00:00 UTC of its expiry date', async () => {
    const today = await tokenOf(await user(), { expiresAt: date(0) })
    expect((await request('GET', '/api/v4/version', { token: today })).body).toEqual(invalidToken(EXPIRED).body)
    const tomorrow = await tokenOf(await user(), { expiresAt: date(1) })
    expect((await request('GET', '/api/v4/version', { token: tomorrow })).status).toBe(200)
    server.travel(2 * 86_400_000)
    try {
      const later = await request('GET', '/api/v4/version', { token: tomorrow })
      expect(later.status).toBe(401)
      expect(later.body).toEqual(invalidToken(EXPIRED).body)
    } finally {
      server.travel(-2 * 86_400_000)
    }
  })

  test('a revoked token: 401 invalid_token with the revoked text', async () => {
    const value = await tokenOf(await user(), { revoked: true })
    const res = await request('GET', '/api/v4/version', { token: value })
    const expected = invalidToken(REVOKED)
    expect(res.status).toBe(401)
    expect(res.body).toEqual(expected.body)
    expect(res.headers['www-authenticate']).toBe(expected.header)
  })

  test('an impersonation token while impersonation is disabled; expiry and revocation are judged first', async () => {
    const owner = await user()
    const impersonation = await tokenOf(owner, { impersonation: true })
    const revokedImpersonation = await tokenOf(owner, { impersonation: true, revoked: true })
    const expiredAndRevoked = await tokenOf(owner, { expiresAt: date(-1), revoked: true })
    const personal = await tokenOf(owner)
    await setSettings({ impersonation_enabled: false })
    try {
      const res = await request('GET', '/api/v4/version', { token: impersonation })
      const expected = invalidToken(IMPERSONATION_DISABLED)
      expect(res.status).toBe(401)
      expect(res.body).toEqual(expected.body)
      expect(res.headers['www-authenticate']).toBe(expected.header)
      expect((await request('GET', '/api/v4/version', { token: revokedImpersonation })).body).toEqual(invalidToken(REVOKED).body)
      expect((await request('GET', '/api/v4/version', { token: expiredAndRevoked })).body).toEqual(invalidToken(EXPIRED).body)
      expect((await request('GET', '/api/v4/version', { token: personal })).status).toBe(200)
    } finally {
      await setSettings({ impersonation_enabled: true })
    }
    expect((await request('GET', '/api/v4/version', { token: impersonation })).status).toBe(200)
  })

  test('blocked, banned, LDAP-blocked, deactivated and pending users are refused with their reason', async () => {
    const cases: [string, string][] = [
      ['blocked', 'Your account has been blocked.'],
      ['banned', 'Your account has been blocked.'],
      ['ldap_blocked', 'Your account has been blocked.'],
      [
        'deactivated',
        `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${server.config.externalUrl}`,
      ],
      ['blocked_pending_approval', 'Your account is pending approval from your administrator and hence blocked.'],
    ]
    for (const [state, reason] of cases) {
      const value = await tokenOf(await user({ state }))
      const res = await request('GET', '/api/v4/version', { token: value })
      expect(res.status, state).toBe(403)
      expect(res.body, state).toEqual({ message: `403 Forbidden - ${reason}` })
    }
  })

  test('a blocked user is refused before a missing scope is reported', async () => {
    const value = await tokenOf(await user({ state: 'blocked' }), { scopes: ['read_repository'] })
    const res = await request('GET', '/api/v4/version', { token: value })
    expect(res.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' })
  })
})

describe('scopes', () => {
  test('read_api reads but does not write', async () => {
    const admin = await user({ admin: 1 })
    const reader = await tokenOf(admin, { scopes: ['read_api'] })
    expect((await request('GET', '/api/v4/version', { token: reader })).status).toBe(200)
    expect((await request('GET', '/api/v4/personal_access_tokens', { token: reader })).status).toBe(200)
    const target = await user()
    const res = await request('POST', `/api/v4/users/${target.id}/personal_access_tokens`, {
      token: reader,
      body: { name: 'x', scopes: ['api'] },
    })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(insufficientScope('api'))
    expect(res.headers['www-authenticate']).toBeUndefined()
  })

  test('api reads and writes', async () => {
    const admin = await user({ admin: 1 })
    const writer = await tokenOf(admin, { scopes: ['api'] })
    expect((await request('GET', '/api/v4/personal_access_tokens', { token: writer })).status).toBe(200)
    const target = await user()
    const res = await request('POST', `/api/v4/users/${target.id}/personal_access_tokens`, {
      token: writer,
      body: { name: 'x', scopes: ['api'] },
    })
    expect(res.status).toBe(201)
  })

  test('read_user opens only the endpoints that accept it', async () => {
    const value = await tokenOf(await user(), { scopes: ['read_user'] })
    expect((await request('GET', '/api/v4/version', { token: value })).status).toBe(200)
    const list = await request('GET', '/api/v4/personal_access_tokens', { token: value })
    expect(list.status).toBe(403)
    expect(list.body).toEqual(insufficientScope('api read_api'))
  })

  test('a token without any accepted scope lists the accepted ones in order', async () => {
    const value = await tokenOf(await user(), { scopes: ['read_repository', 'write_repository'] })
    const res = await request('GET', '/api/v4/version', { token: value })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(insufficientScope('api read_api read_user'))
  })
})

describe('sudo', () => {
  test('the Sudo header acts as the user named by id or by username, case-insensitively', async () => {
    const target = await user()
    await tokenOf(target, { name: 'target token' })
    const asAdmin = await tokenNamesSeen({ 'private-token': server.rootToken, sudo: String(target.id) })
    expect(asAdmin).toEqual({ status: 200, names: ['target token'] })
    const byName = await tokenNamesSeen({ 'private-token': server.rootToken, sudo: target.username.toUpperCase() })
    expect(byName).toEqual({ status: 200, names: ['target token'] })
  })

  test('the sudo parameter wins over the header', async () => {
    const first = await user()
    const second = await user()
    await tokenOf(first, { name: 'first' })
    await tokenOf(second, { name: 'second' })
    const seen = await tokenNamesSeen({ 'private-token': server.rootToken, sudo: second.username }, `?sudo=${first.username}`)
    expect(seen).toEqual({ status: 200, names: ['first'] })
  })

  test('only the sudo scope is checked while sudo is in effect', async () => {
    const admin = await user({ admin: 1 })
    const sudoOnly = await tokenOf(admin, { scopes: ['sudo'] })
    const target = await user()
    await tokenOf(target, { name: 'seen through sudo' })
    const withSudo = await tokenNamesSeen({ 'private-token': sudoOnly, sudo: target.username })
    expect(withSudo).toEqual({ status: 200, names: ['seen through sudo'] })
    const withoutSudo = await request('GET', '/api/v4/personal_access_tokens', { token: sudoOnly })
    expect(withoutSudo.body).toEqual(insufficientScope('api read_api'))
  })

  test('an unknown user is 404 naming the value as given', async () => {
    const res = await request('GET', '/api/v4/version', { headers: { 'private-token': server.rootToken, sudo: 'No-Such-User' } })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: '404 User with ID or username No-Such-User Not Found' })
    const byId = await request('GET', '/api/v4/version?sudo=999999', { token: server.rootToken })
    expect(byId.body).toEqual({ message: '404 User with ID or username 999999 Not Found' })
  })

  test('a non-admin cannot use sudo', async () => {
    const value = await tokenOf(await user(), { scopes: ['api', 'sudo'] })
    const res = await request('GET', '/api/v4/version', { headers: { 'private-token': value, sudo: 'root' } })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' })
  })

  test('an admin token without the sudo scope is insufficient_scope with scope sudo', async () => {
    const value = await tokenOf(await user({ admin: 1 }), { scopes: ['api'] })
    const res = await request('GET', '/api/v4/version', { headers: { 'private-token': value, sudo: 'root' } })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(insufficientScope('sudo'))
  })

  test('sudo without credentials is 401', async () => {
    const res = await request('GET', '/api/v4/version', { headers: { sudo: 'root' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual(UNAUTHORIZED)
    const anonymousAllowed = await request('GET', '/api/v4/users?username=root&sudo=root')
    expect(anonymousAllowed.status).toBe(401)
  })
})

describe('last use', () => {
  test('recorded on use, at most every 10 minutes, with the client IP', async () => {
    const owner = await user()
    const created = await createTestToken(server.database.db, owner)
    const row = async () =>
      server.database.db
        .selectFrom('personal_access_tokens')
        .select(['last_used_at', 'last_used_ips'])
        .where('id', '=', created.row.id)
        .executeTakeFirstOrThrow()
    await request('GET', '/api/v4/version', { token: created.value })
    const first = await row()
    expect(first.last_used_at).not.toBeNull()
    expect(JSON.parse(first.last_used_ips)).toEqual(['127.0.0.1'])
    server.travel(5 * 60 * 1000)
    try {
      await request('GET', '/api/v4/version', { token: created.value })
      expect((await row()).last_used_at).toBe(first.last_used_at)
      server.travel(5 * 60 * 1000)
      await request('GET', '/api/v4/version', { token: created.value })
      expect((await row()).last_used_at).not.toBe(first.last_used_at)
    } finally {
      server.travel(-10 * 60 * 1000)
    }
  })

  test('not recorded for a refused expired token', async () => {
    const created = await createTestToken(server.database.db, await user(), { expiresAt: date(-1) })
    await request('GET', '/api/v4/version', { token: created.value })
    const row = await server.database.db
      .selectFrom('personal_access_tokens')
      .select('last_used_at')
      .where('id', '=', created.row.id)
      .executeTakeFirstOrThrow()
    expect(row.last_used_at).toBeNull()
  })
})
