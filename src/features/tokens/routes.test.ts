import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { addDays, isoDate } from '../../core/time.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { upsertSettingRows } from '../settings/store.js'

let server: TestServer
let request: ReturnType<typeof client>
let admin: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  admin = server.rootToken
})
afterAll(() => server.close())

const TOKEN_KEYS = ['id', 'name', 'revoked', 'created_at', 'description', 'scopes', 'user_id', 'last_used_at', 'active', 'expires_at']
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

function today(days = 0): string {
  return isoDate(addDays(new Date(), days))
}

async function setSettings(values: Record<string, unknown>) {
  await upsertSettingRows(server.database.db, values, new Date().toISOString())
  server.app.settings.invalidate()
}

async function user(overrides: Parameters<typeof createTestUser>[1] = {}): Promise<User> {
  return createTestUser(server.database.db, overrides)
}

async function token(owner: User, options: Parameters<typeof createTestToken>[2] = {}) {
  return createTestToken(server.database.db, owner, options)
}

describe('POST /users/:user_id/personal_access_tokens', () => {
  afterEach(() => setSettings({ require_personal_access_token_expiry: true, max_personal_access_token_lifetime: null }))

  test('an admin creates a token for a user: 201 with the token, in GitLab field order', async () => {
    const owner = await user()
    const res = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'ci', scopes: ['api', 'read_user'], description: 'for CI', expires_at: today(30) },
    })
    expect(res.status).toBe(201)
    expect(res.headers['content-type']).toBe('application/json')
    expect(Object.keys(res.body)).toEqual([...TOKEN_KEYS, 'token'])
    expect(res.body).toMatchObject({
      name: 'ci',
      revoked: false,
      description: 'for CI',
      scopes: ['api', 'read_user'],
      user_id: owner.id,
      last_used_at: null,
      active: true,
      expires_at: today(30),
    })
    expect(res.body.created_at).toMatch(ISO)
    expect(res.body.token).toMatch(/^svcpat-[A-Za-z0-9_-]{20}$/)

    const used = await request('GET', '/api/v4/version', { token: res.body.token })
    expect(used.status).toBe(200)
  })

  test('only the digest is stored', async () => {
    const owner = await user()
    const res = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'stored', scopes: ['api'] },
    })
    const row = await server.database.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain(res.body.token)
    expect(JSON.stringify(row)).not.toContain(res.body.token.slice('svcpat-'.length))
  })

  test('form bodies and comma-separated scopes are accepted', async () => {
    const owner = await user()
    const res = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      form: true,
      body: { name: 'form', scopes: 'read_api,read_repository' },
    })
    expect(res.status).toBe(201)
    expect(res.body.scopes).toEqual(['read_api', 'read_repository'])
    expect(res.body.description).toBeNull()
  })

  test('without expires_at the token gets the maximum lifetime while expiry is required, else none', async () => {
    const owner = await user()
    const required = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'default', scopes: ['api'] },
    })
    expect(required.body.expires_at).toBe(today(365))
    await setSettings({ require_personal_access_token_expiry: false })
    const optional = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'forever', scopes: ['api'] },
    })
    expect(optional.status).toBe(201)
    expect(optional.body.expires_at).toBeNull()
  })

  test('an expiry past the maximum lifetime is 422 with the model sentence', async () => {
    const owner = await user()
    const res = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'long', scopes: ['api'], expires_at: today(366) },
    })
    expect(res.status).toBe(422)
    expect(res.body).toEqual({ message: `Expires at must be before ${today(365)}` })

    await setSettings({ max_personal_access_token_lifetime: 30 })
    const limited = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'long', scopes: ['api'], expires_at: today(31) },
    })
    expect(limited.body).toEqual({ message: `Expires at must be before ${today(30)}` })
    const defaulted = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'default', scopes: ['api'] },
    })
    expect(defaulted.body.expires_at).toBe(today(30))
  })

  test('an expiry in the past is accepted, as GitLab does, and the token is inactive at once', async () => {
    const owner = await user()
    const res = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'old', scopes: ['api'], expires_at: today(-1) },
    })
    expect(res.status).toBe(201)
    expect(res.body.active).toBe(false)
    const used = await request('GET', '/api/v4/version', { token: res.body.token })
    expect(used.status).toBe(401)
  })

  test('parameter errors: missing name or scopes, unknown scope, bad date, blank name', async () => {
    const owner = await user()
    const url = `/api/v4/users/${owner.id}/personal_access_tokens`
    const noName = await request('POST', url, { token: admin, body: { scopes: ['api'] } })
    expect(noName.status).toBe(400)
    expect(noName.body).toEqual({ message: '400 (Bad request) "name" not given' })
    const noScopes = await request('POST', url, { token: admin, body: { name: 'x' } })
    expect(noScopes.body).toEqual({ message: '400 (Bad request) "scopes" not given' })
    const badScope = await request('POST', url, { token: admin, body: { name: 'x', scopes: ['api', 'everything'] } })
    expect(badScope.status).toBe(400)
    expect(badScope.body).toEqual({ error: 'scopes does not have a valid value' })
    const badDate = await request('POST', url, { token: admin, body: { name: 'x', scopes: ['api'], expires_at: '2026-02-30' } })
    expect(badDate.body).toEqual({ error: 'expires_at is invalid' })
    const blank = await request('POST', url, { token: admin, body: { name: ' ', scopes: [] } })
    expect(blank.status).toBe(422)
    expect(blank.body).toEqual({ message: "Name can't be blank and Scopes can't be blank" })
  })

  test('anonymous 401, non-admin 403 before any parameter check, unknown user 404', async () => {
    const owner = await user()
    const other = await token(await user())
    const url = `/api/v4/users/${owner.id}/personal_access_tokens`
    expect((await request('POST', url, { body: {} })).status).toBe(401)
    const forbidden = await request('POST', url, { token: other.value, body: {} })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toEqual({ message: '403 Forbidden' })
    const missing = await request('POST', '/api/v4/users/999999/personal_access_tokens', {
      token: admin,
      body: { name: 'x', scopes: ['api'] },
    })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 User Not Found' })
    const invalid = await request('POST', '/api/v4/users/abc/personal_access_tokens', {
      token: admin,
      body: { name: 'x', scopes: ['api'] },
    })
    expect(invalid.body).toEqual({ error: 'user_id is invalid' })
  })
})

describe('GET /personal_access_tokens', () => {
  test('a user sees only their own personal tokens, with offset pagination headers', async () => {
    const owner = await user()
    const mine = await token(owner, { name: 'mine' })
    await token(owner, { name: 'impersonation', impersonation: true })
    await token(await user(), { name: 'theirs' })
    const res = await request('GET', '/api/v4/personal_access_tokens', { token: mine.value })
    expect(res.status).toBe(200)
    expect(res.body.map((t: { name: string }) => t.name)).toEqual(['mine'])
    expect(Object.keys(res.body[0])).toEqual(TOKEN_KEYS)
    expect(res.headers['x-total']).toBe('1')
    expect(res.headers['x-page']).toBe('1')
    expect(res.headers['x-per-page']).toBe('20')
    expect(res.headers['x-next-page']).toBe('')
    expect(res.headers.link).toBe(
      `<${server.url}/api/v4/personal_access_tokens?page=1&per_page=20>; rel="first", <${server.url}/api/v4/personal_access_tokens?page=1&per_page=20>; rel="last"`,
    )
  })

  test("a user naming another user's id is 401; their own id is fine", async () => {
    const owner = await user()
    const mine = await token(owner)
    const other = await user()
    const res = await request('GET', `/api/v4/personal_access_tokens?user_id=${other.id}`, { token: mine.value })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
    const own = await request('GET', `/api/v4/personal_access_tokens?user_id=${owner.id}`, { token: mine.value })
    expect(own.status).toBe(200)
    expect(own.body).toHaveLength(1)
  })

  test('an admin sees every token including impersonation tokens, or one user by user_id', async () => {
    const owner = await user()
    const personal = await token(owner, { name: 'p' })
    const impersonation = await token(owner, { name: 'i', impersonation: true })
    const all = await request('GET', '/api/v4/personal_access_tokens?per_page=100', { token: admin })
    const ids = all.body.map((t: { id: number }) => t.id)
    expect(ids).toContain(personal.row.id)
    expect(ids).toContain(impersonation.row.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    const one = await request('GET', `/api/v4/personal_access_tokens?user_id=${owner.id}`, { token: admin })
    expect(one.body.map((t: { id: number }) => t.id)).toEqual([personal.row.id, impersonation.row.id])
    const unknown = await request('GET', '/api/v4/personal_access_tokens?user_id=999999', { token: admin })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ message: '404 Not Found' })
    const blank = await request('GET', '/api/v4/personal_access_tokens?user_id=', { token: admin })
    expect(blank.status).toBe(404)
  })

  test('filters: state, revoked, dates, last use, search, sort', async () => {
    const owner = await user()
    const active = await token(owner, { name: 'Deploy key one', expiresAt: today(10) })
    const revoked = await token(owner, { name: 'deploy two', revoked: true })
    const expired = await token(owner, { name: 'other', expiresAt: today(-2) })
    await server.database.db
      .updateTable('personal_access_tokens')
      .set({ last_used_at: '2020-01-01T00:00:00.000Z' })
      .where('id', '=', revoked.row.id)
      .execute()
    const list = async (query: string) => {
      const res = await request('GET', `/api/v4/personal_access_tokens?user_id=${owner.id}&${query}`, { token: admin })
      expect(res.status).toBe(200)
      return res.body.map((t: { id: number }) => t.id)
    }
    expect(await list('state=active')).toEqual([active.row.id])
    expect(await list('state=inactive')).toEqual([revoked.row.id, expired.row.id])
    expect(await list('revoked=true')).toEqual([revoked.row.id])
    expect(await list('revoked=false')).toEqual([active.row.id, expired.row.id])
    expect(await list(`expires_before=${today()}`)).toEqual([expired.row.id])
    expect(await list(`expires_after=${today()}`)).toEqual([active.row.id])
    expect(await list('last_used_before=2021-01-01')).toEqual([revoked.row.id])
    expect(await list('last_used_after=2021-01-01')).toEqual([])
    expect(await list('created_after=2000-01-01T00:00:00Z')).toEqual([active.row.id, revoked.row.id, expired.row.id])
    expect(await list('created_before=2000-01-01')).toEqual([])
    expect(await list('search=DEPLOY')).toEqual([active.row.id, revoked.row.id])
    expect(await list('search=deploy%20one')).toEqual([active.row.id])
    expect(await list('search=de')).toEqual([])
    expect(await list('sort=name_desc')).toEqual([expired.row.id, revoked.row.id, active.row.id])
    expect(await list('sort=id_desc')).toEqual([expired.row.id, revoked.row.id, active.row.id])
    expect(await list('sort=expires_asc')).toEqual([expired.row.id, active.row.id, revoked.row.id])
    expect(await list('sort=nonsense')).toEqual([active.row.id, revoked.row.id, expired.row.id])

    const bad = await request('GET', '/api/v4/personal_access_tokens?state=gone', { token: admin })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({ error: 'state does not have a valid value' })
  })

  test('pages', async () => {
    const owner = await user()
    const own = await token(owner, { name: 'a' })
    await token(owner, { name: 'b' })
    await token(owner, { name: 'c' })
    const res = await request('GET', '/api/v4/personal_access_tokens?per_page=2&page=2', { token: own.value })
    expect(res.body.map((t: { name: string }) => t.name)).toEqual(['c'])
    expect(res.headers['x-total']).toBe('3')
    expect(res.headers['x-total-pages']).toBe('2')
    expect(res.headers['x-prev-page']).toBe('1')
  })

  test('anonymous is 401', async () => {
    const res = await request('GET', '/api/v4/personal_access_tokens')
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
  })
})

describe('GET /personal_access_tokens/:id and /self', () => {
  test('self answers the token used, with any scope, including last_used_ips', async () => {
    const owner = await user()
    const own = await token(owner, { scopes: ['read_repository'] })
    const res = await request('GET', '/api/v4/personal_access_tokens/self', { token: own.value })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual([...TOKEN_KEYS, 'last_used_ips'])
    expect(res.body.id).toBe(own.row.id)
    expect(res.body.last_used_at).toMatch(ISO)
    expect(res.body.last_used_ips).toEqual(['127.0.0.1'])
  })

  test('the owner and admins read a token; others get 401 and admins 404 for a missing one', async () => {
    const owner = await user()
    const own = await token(owner)
    const stranger = await token(await user())
    const mine = await request('GET', `/api/v4/personal_access_tokens/${own.row.id}`, { token: own.value })
    expect(mine.status).toBe(200)
    expect(mine.body.id).toBe(own.row.id)
    expect((await request('GET', `/api/v4/personal_access_tokens/${own.row.id}`, { token: admin })).status).toBe(200)
    const denied = await request('GET', `/api/v4/personal_access_tokens/${own.row.id}`, { token: stranger.value })
    expect(denied.status).toBe(401)
    expect(denied.body).toEqual({ message: '401 Unauthorized' })
    expect((await request('GET', '/api/v4/personal_access_tokens/999999', { token: stranger.value })).status).toBe(401)
    const missing = await request('GET', '/api/v4/personal_access_tokens/999999', { token: admin })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Not Found' })
    expect((await request('GET', '/api/v4/personal_access_tokens/abc', { token: admin })).status).toBe(404)
  })
})

describe('DELETE /personal_access_tokens/:id and /self', () => {
  test('the owner revokes a token: 204, then it is listed revoked and refused', async () => {
    const owner = await user()
    const own = await token(owner)
    const victim = await token(owner, { name: 'victim' })
    const res = await request('DELETE', `/api/v4/personal_access_tokens/${victim.row.id}`, { token: own.value })
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    const shown = await request('GET', `/api/v4/personal_access_tokens/${victim.row.id}`, { token: own.value })
    expect(shown.body).toMatchObject({ revoked: true, active: false })
    const used = await request('GET', '/api/v4/version', { token: victim.value })
    expect(used.status).toBe(401)
    expect(used.body.error_description).toBe('Token was revoked. You have to re-authorize from the user.')
  })

  test("another user's token is 400, a missing one ActiveRecord's 404, an admin may revoke any", async () => {
    const owner = await user()
    const own = await token(owner)
    const theirs = await token(await user())
    const refused = await request('DELETE', `/api/v4/personal_access_tokens/${theirs.row.id}`, { token: own.value })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({ message: '400 Bad request' })
    const missing = await request('DELETE', '/api/v4/personal_access_tokens/999999', { token: own.value })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ message: '404 Not found' })
    expect((await request('DELETE', `/api/v4/personal_access_tokens/${theirs.row.id}`, { token: admin })).status).toBe(204)
  })

  test('self revokes the token used, whatever its scopes; an impersonation token cannot', async () => {
    const owner = await user()
    const own = await token(owner, { scopes: ['read_user'] })
    const res = await request('DELETE', '/api/v4/personal_access_tokens/self', { token: own.value })
    expect(res.status).toBe(204)
    expect((await request('GET', '/api/v4/version', { token: own.value })).status).toBe(401)
    const impersonation = await token(owner, { impersonation: true })
    const refused = await request('DELETE', '/api/v4/personal_access_tokens/self', { token: impersonation.value })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({ message: '400 Bad request' })
  })
})

describe('rotation', () => {
  afterEach(() => setSettings({ require_personal_access_token_expiry: true }))

  test('rotating by id: 200, a new token with the same name, description and scopes; the old one revoked', async () => {
    const owner = await user()
    const created = await request('POST', `/api/v4/users/${owner.id}/personal_access_tokens`, {
      token: admin,
      body: { name: 'rotating', description: 'd', scopes: ['api', 'read_user'] },
    })
    const res = await request('POST', `/api/v4/personal_access_tokens/${created.body.id}/rotate`, { token: created.body.token })
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual([...TOKEN_KEYS, 'token'])
    expect(res.body).toMatchObject({
      name: 'rotating',
      description: 'd',
      scopes: ['api', 'read_user'],
      user_id: owner.id,
      active: true,
      expires_at: today(7),
    })
    expect(res.body.id).not.toBe(created.body.id)
    expect(res.body.token).not.toBe(created.body.token)
    expect((await request('GET', '/api/v4/version', { token: res.body.token })).status).toBe(200)
    const old = await request('GET', `/api/v4/personal_access_tokens/${created.body.id}`, { token: admin })
    expect(old.body).toMatchObject({ revoked: true, active: false })

    const again = await request('POST', `/api/v4/personal_access_tokens/${created.body.id}/rotate`, { token: admin })
    expect(again.status).toBe(400)
    expect(again.body).toEqual({ message: '400 Bad request - Token already revoked' })
  })

  test('expires_at is taken; too far is 400 with the sentence; without required expiry the new token has none', async () => {
    const owner = await user()
    const own = await token(owner)
    const dated = await request('POST', `/api/v4/personal_access_tokens/${own.row.id}/rotate`, {
      token: own.value,
      body: { expires_at: today(20) },
    })
    expect(dated.body.expires_at).toBe(today(20))
    const tooFar = await request('POST', `/api/v4/personal_access_tokens/${dated.body.id}/rotate`, {
      token: dated.body.token,
      body: { expires_at: today(400) },
    })
    expect(tooFar.status).toBe(400)
    expect(tooFar.body).toEqual({ message: `400 Bad request - Expires at must be before ${today(365)}` })
    expect((await request('GET', '/api/v4/version', { token: dated.body.token })).status).toBe(200)
    await setSettings({ require_personal_access_token_expiry: false })
    const open = await request('POST', `/api/v4/personal_access_tokens/${dated.body.id}/rotate`, { token: dated.body.token })
    expect(open.body.expires_at).toBeNull()
  })

  test("another user's token: 401 for users, 404 for admins when missing; admins rotate any", async () => {
    const own = await token(await user())
    const theirs = await token(await user())
    const denied = await request('POST', `/api/v4/personal_access_tokens/${theirs.row.id}/rotate`, { token: own.value })
    expect(denied.status).toBe(401)
    expect((await request('POST', '/api/v4/personal_access_tokens/999999/rotate', { token: admin })).body).toEqual({
      message: '404 Not Found',
    })
    expect((await request('POST', `/api/v4/personal_access_tokens/${theirs.row.id}/rotate`, { token: admin })).status).toBe(200)
  })

  test('self rotation accepts api or self_rotate tokens, not read_api', async () => {
    const owner = await user()
    const selfRotating = await token(owner, { scopes: ['self_rotate'] })
    const res = await request('POST', '/api/v4/personal_access_tokens/self/rotate', { token: selfRotating.value })
    expect(res.status).toBe(200)
    expect(res.body.scopes).toEqual(['self_rotate'])
    const reader = await token(owner, { scopes: ['read_api'] })
    const refused = await request('POST', '/api/v4/personal_access_tokens/self/rotate', { token: reader.value })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api self_rotate',
    })
  })

  test('reusing a rotated-away token on a rotate path revokes the whole family', async () => {
    const owner = await user()
    const first = await token(owner, { name: 'family' })
    const second = await request('POST', '/api/v4/personal_access_tokens/self/rotate', { token: first.value })
    const third = await request('POST', '/api/v4/personal_access_tokens/self/rotate', { token: second.body.token })
    const bystander = await token(owner, { name: 'bystander' })
    expect((await request('GET', '/api/v4/version', { token: third.body.token })).status).toBe(200)

    // Reuse elsewhere is only refused.
    expect((await request('GET', '/api/v4/version', { token: first.value })).status).toBe(401)
    expect((await request('GET', '/api/v4/version', { token: third.body.token })).status).toBe(200)

    const reuse = await request('POST', `/api/v4/personal_access_tokens/${first.row.id}/rotate`, { token: first.value })
    expect(reuse.status).toBe(401)
    expect(reuse.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' })
    const latest = await request('GET', '/api/v4/version', { token: third.body.token })
    expect(latest.status).toBe(401)
    expect(latest.body.error_description).toBe('Token was revoked. You have to re-authorize from the user.')
    expect((await request('GET', '/api/v4/version', { token: bystander.value })).status).toBe(200)
  })
})

describe('impersonation tokens', () => {
  test('an admin creates, lists, reads and revokes impersonation tokens', async () => {
    const owner = await user()
    const base = `/api/v4/users/${owner.id}/impersonation_tokens`
    const created = await request('POST', base, {
      token: admin,
      body: { name: 'imp', scopes: ['api'], expires_at: today(5), description: 'x' },
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body)).toEqual([...TOKEN_KEYS, 'impersonation', 'token'])
    expect(created.body).toMatchObject({
      name: 'imp',
      impersonation: true,
      scopes: ['api'],
      user_id: owner.id,
      expires_at: today(5),
      active: true,
    })

    const asUser = await request('GET', '/api/v4/version', { token: created.body.token })
    expect(asUser.status).toBe(200)
    await token(owner, { name: 'personal' })

    const list = await request('GET', base, { token: admin })
    expect(list.status).toBe(200)
    expect(list.body.map((t: { id: number }) => t.id)).toEqual([created.body.id])
    expect(Object.keys(list.body[0])).toEqual([...TOKEN_KEYS, 'impersonation'])
    expect(list.headers['x-total']).toBe('1')

    const one = await request('GET', `${base}/${created.body.id}`, { token: admin })
    expect(one.body).toMatchObject({ id: created.body.id, impersonation: true })

    const revoked = await request('DELETE', `${base}/${created.body.id}`, { token: admin })
    expect(revoked.status).toBe(204)
    expect((await request('GET', `${base}?state=inactive`, { token: admin })).body.map((t: { id: number }) => t.id)).toEqual([
      created.body.id,
    ])
    expect((await request('GET', `${base}?state=active`, { token: admin })).body).toEqual([])
    expect((await request('GET', `${base}/${created.body.id}`, { token: admin })).body.revoked).toBe(true)
  })

  test('validation failures are the model map; scopes may be comma-separated', async () => {
    const owner = await user()
    const base = `/api/v4/users/${owner.id}/impersonation_tokens`
    const noScopes = await request('POST', base, { token: admin, body: { name: 'imp' } })
    expect(noScopes.status).toBe(400)
    expect(noScopes.body).toEqual({ message: { scopes: ["can't be blank"] } })
    const unknown = await request('POST', base, { token: admin, body: { name: 'imp', scopes: ['api', 'nope'] } })
    expect(unknown.body).toEqual({ message: { scopes: ['can only contain available scopes'] } })
    const tooLong = await request('POST', base, { token: admin, body: { name: 'imp', scopes: 'api', expires_at: today(400) } })
    expect(tooLong.body).toEqual({ message: { expires_at: [`must be before ${today(365)}`] } })
    const comma = await request('POST', base, { token: admin, form: true, body: { name: 'imp', scopes: 'api,read_user' } })
    expect(comma.status).toBe(201)
    expect(comma.body.scopes).toEqual(['api', 'read_user'])
    expect(comma.body.expires_at).toBe(today(365))
    const noName = await request('POST', base, { token: admin, body: { scopes: ['api'] } })
    expect(noName.body).toEqual({ message: '400 (Bad request) "name" not given' })
  })

  test('not found and not allowed', async () => {
    const owner = await user()
    const personal = await token(owner)
    const stranger = await token(await user())
    expect((await request('GET', `/api/v4/users/${owner.id}/impersonation_tokens`, { token: stranger.value })).body).toEqual({
      message: '403 Forbidden',
    })
    expect((await request('GET', '/api/v4/users/999999/impersonation_tokens', { token: admin })).body).toEqual({
      message: '404 User Not Found',
    })
    const notImpersonation = await request('GET', `/api/v4/users/${owner.id}/impersonation_tokens/${personal.row.id}`, { token: admin })
    expect(notImpersonation.status).toBe(404)
    expect(notImpersonation.body).toEqual({ message: '404 Impersonation Token Not Found' })
    expect((await request('DELETE', `/api/v4/users/${owner.id}/impersonation_tokens/999999`, { token: admin })).status).toBe(404)
    expect((await request('GET', `/api/v4/users/${owner.id}/impersonation_tokens?state=later`, { token: admin })).body).toEqual({
      error: 'state does not have a valid value',
    })
  })
})

describe('last use', () => {
  test('last_used_at is written at most every 10 minutes', async () => {
    const own = await token(await user())
    const lastUsed = async () =>
      (
        await server.database.db
          .selectFrom('personal_access_tokens')
          .select('last_used_at')
          .where('id', '=', own.row.id)
          .executeTakeFirstOrThrow()
      ).last_used_at
    expect(await lastUsed()).toBeNull()
    await request('GET', '/api/v4/version', { token: own.value })
    const first = await lastUsed()
    expect(first).toMatch(ISO)
    server.travel(9 * 60 * 1000)
    await request('GET', '/api/v4/version', { token: own.value })
    expect(await lastUsed()).toBe(first)
    server.travel(60 * 1000)
    await request('GET', '/api/v4/version', { token: own.value })
    const third = await lastUsed()
    expect(Date.parse(third!) - Date.parse(first!)).toBeGreaterThanOrEqual(10 * 60 * 1000)
    server.travel(-10 * 60 * 1000)
  })
})
