import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { digestToken } from '../../core/secrets.js'
import { contextFor } from '../../testing/context.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findApplication, isApplicationSecret } from './index.js'
import { createOwnApplication } from './service.js'

let server: TestServer
let request: ReturnType<typeof client>
let admin: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  admin = server.rootToken
})
afterAll(() => server.close())

const APPLICATION_KEYS = ['id', 'application_id', 'application_name', 'callback_url', 'confidential', 'scopes']
const UID = /^[0-9a-f]{64}$/
const SECRET = /^svcoas-[0-9a-f]{64}$/

async function user(overrides: Parameters<typeof createTestUser>[1] = {}): Promise<User> {
  return createTestUser(server.database.db, overrides)
}

async function userToken(owner: User): Promise<string> {
  return (await createTestToken(server.database.db, owner)).value
}

async function countApplications(): Promise<number> {
  const row = await server.database.db
    .selectFrom('oauth_applications')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** POST /applications as root, as the user whose token is given, or anonymously (null). */
function create(body: Record<string, unknown>, token: string | null = admin) {
  return request('POST', '/api/v4/applications', { token: token ?? undefined, body })
}

describe('POST /applications', () => {
  test('an administrator registers an application: 201 with its id, client id and the secret, once', async () => {
    const res = await create({ name: 'CI dashboard', redirect_uri: 'https://ci.example.com/callback', scopes: 'api read_user' })
    expect(res.status).toBe(201)
    expect(res.headers['content-type']).toBe('application/json')
    expect(Object.keys(res.body)).toEqual([...APPLICATION_KEYS, 'secret'])
    expect(res.body).toEqual({
      id: expect.any(Number),
      application_id: expect.stringMatching(UID),
      application_name: 'CI dashboard',
      callback_url: 'https://ci.example.com/callback',
      confidential: true,
      scopes: ['api', 'read_user'],
      secret: expect.stringMatching(SECRET),
    })

    const stored = await findApplication(server.database.db, res.body.application_id)
    expect(stored).toMatchObject({ id: res.body.id, owner_id: null, scopes: 'api read_user', confidential: 1, trusted: 0 })
    // Only the digest is kept.
    expect(stored?.secret_digest).toBe(digestToken(res.body.secret))
    expect(JSON.stringify(stored)).not.toContain(res.body.secret)
    expect(isApplicationSecret(stored!, res.body.secret)).toBe(true)
  })

  test('form fields, several redirect URIs, non-confidential, repeated scopes', async () => {
    const res = await request('POST', '/api/v4/applications', {
      token: admin,
      form: true,
      body: {
        name: 'Mobile',
        redirect_uri: 'com.example.app:/cb\r\nhttp://localhost:8080/cb',
        scopes: 'openid profile openid',
        confidential: 'false',
      },
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      application_name: 'Mobile',
      callback_url: 'com.example.app:/cb\nhttp://localhost:8080/cb',
      confidential: false,
      scopes: ['openid', 'profile'],
    })
  })

  test('confidential given as null keeps the default, true', async () => {
    const res = await create({ name: 'x', redirect_uri: 'https://x.example/cb', scopes: 'api', confidential: null })
    expect(res.status).toBe(201)
    expect(res.body.confidential).toBe(true)
  })

  test.each([
    [{ redirect_uri: 'http://' }, { redirect_uri: ['must be a valid URI.'] }],
    [{ redirect_uri: 'javascript://alert()' }, { redirect_uri: ['is forbidden by the server.'] }],
    [{ redirect_uri: '/callback' }, { redirect_uri: ['must be an absolute URI.'] }],
    [{ redirect_uri: 'https://x.example/cb#top' }, { redirect_uri: ['cannot contain a fragment.'] }],
    [{ redirect_uri: '' }, { redirect_uri: ["can't be blank"] }],
    [{ scopes: 'non_existent_scope' }, { scopes: ["doesn't match configured on the server."] }],
    [{ scopes: 'api non_existent_scope' }, { scopes: ["doesn't match configured on the server."] }],
    [{ name: ' ' }, { name: ["can't be blank"] }],
    [
      { name: '', redirect_uri: 'nope', scopes: 'nope' },
      { name: ["can't be blank"], redirect_uri: ['must be an absolute URI.'], scopes: ["doesn't match configured on the server."] },
    ],
  ])('%j is refused with 400 and the model errors; nothing is written', async (change, errors) => {
    const before = await countApplications()
    const res = await create({ name: 'app', redirect_uri: 'https://app.example/cb', scopes: 'api', ...change })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ message: errors })
    expect(Object.keys(res.body.message)).toEqual(Object.keys(errors))
    expect(await countApplications()).toBe(before)
  })

  test.each([
    [{ redirect_uri: 'https://a.example/cb', scopes: 'api' }, { message: '400 (Bad request) "name" not given' }],
    [{ name: 'a', scopes: 'api' }, { message: '400 (Bad request) "redirect_uri" not given' }],
    [{ name: 'a', redirect_uri: 'https://a.example/cb' }, { message: '400 (Bad request) "scopes" not given' }],
    [{ name: 'a', redirect_uri: 'https://a.example/cb', scopes: '' }, { error: 'scopes is empty' }],
    [{ name: 'a', redirect_uri: 'https://a.example/cb', scopes: '  ' }, { error: 'scopes is empty' }],
    [{ name: 'a', redirect_uri: 'https://a.example/cb', scopes: 'api', confidential: 'maybe' }, { error: 'confidential is invalid' }],
  ])('parameter problems: %j → 400 %j', async (body, expected) => {
    const before = await countApplications()
    const res = await create(body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual(expected)
    expect(await countApplications()).toBe(before)
  })

  test('anonymous callers get 401, other users 403, before their parameters are looked at; nothing is written', async () => {
    const before = await countApplications()
    const anonymous = await create({ name: 'a', redirect_uri: 'https://a.example/cb', scopes: 'api' }, null)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' })
    const token = await userToken(await user())
    const plain = await create({ name: 'a', redirect_uri: 'https://a.example/cb', scopes: 'api' }, token)
    expect(plain.status).toBe(403)
    expect(plain.body).toEqual({ message: '403 Forbidden' })
    expect((await create({}, token)).status).toBe(403)
    expect(await countApplications()).toBe(before)
  })
})

describe('GET /applications', () => {
  test("lists the instance's applications without secrets; users' own applications are not listed", async () => {
    const created = await create({ name: 'Listed', redirect_uri: 'https://listed.example/cb', scopes: 'read_api' })
    const owner = await user()
    const own = await createOwnApplication(contextFor(server, owner), {
      name: 'Personal',
      redirectUri: 'https://personal.example/cb',
      scopes: 'api',
      confidential: true,
    })

    const res = await request('GET', '/api/v4/applications', { token: admin })
    expect(res.status).toBe(200)
    expect(Array.isArray(res.body)).toBe(true)
    const listed = res.body.find((a: { id: number }) => a.id === created.body.id)
    expect(Object.keys(listed)).toEqual(APPLICATION_KEYS)
    expect(listed).toEqual({
      id: created.body.id,
      application_id: created.body.application_id,
      application_name: 'Listed',
      callback_url: 'https://listed.example/cb',
      confidential: true,
      scopes: ['read_api'],
    })
    expect(res.body.map((a: { id: number }) => a.id)).not.toContain(own.application.id)
    expect(res.text).not.toContain('secret')
    expect(res.body.map((a: { id: number }) => a.id)).toEqual([...res.body.map((a: { id: number }) => a.id)].sort((x, y) => x - y))
  })

  test('401 anonymous, 403 for a user', async () => {
    expect((await request('GET', '/api/v4/applications')).status).toBe(401)
    const res = await request('GET', '/api/v4/applications', { token: await userToken(await user()) })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden' })
  })
})

describe('DELETE /applications/:id', () => {
  test('204 with no body, then 404 Application Not Found', async () => {
    const created = await create({ name: 'Gone', redirect_uri: 'https://gone.example/cb', scopes: 'api' })
    const res = await request('DELETE', `/api/v4/applications/${created.body.id}`, { token: admin })
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect(await findApplication(server.database.db, created.body.application_id)).toBeNull()

    const again = await request('DELETE', `/api/v4/applications/${created.body.id}`, { token: admin })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ message: '404 Application Not Found' })
  })

  test("takes the application's tokens and codes with it; a user's application can be removed by its id too", async () => {
    const owner = await user()
    const own = await createOwnApplication(contextFor(server, owner), {
      name: 'Personal',
      redirectUri: 'https://personal.example/cb',
      scopes: 'api',
      confidential: true,
    })
    const at = new Date().toISOString()
    await server.database.db
      .insertInto('oauth_access_tokens')
      .values({
        application_id: own.application.id,
        resource_owner_id: owner.id,
        token_digest: digestToken(`t-${own.application.id}`),
        scopes: 'api',
        expires_in: 7200,
        created_at: at,
      })
      .execute()
    const res = await request('DELETE', `/api/v4/applications/${own.application.id}`, { token: admin })
    expect(res.status).toBe(204)
    const tokens = await server.database.db
      .selectFrom('oauth_access_tokens')
      .select('id')
      .where('application_id', '=', own.application.id)
      .execute()
    expect(tokens).toEqual([])
  })

  test('an id that is not a number is a parameter error; users are refused', async () => {
    const res = await request('DELETE', '/api/v4/applications/abc', { token: admin })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'id is invalid' })
    const created = await create({ name: 'Kept', redirect_uri: 'https://kept.example/cb', scopes: 'api' })
    expect((await request('DELETE', `/api/v4/applications/${created.body.id}`)).status).toBe(401)
    expect((await request('DELETE', `/api/v4/applications/${created.body.id}`, { token: await userToken(await user()) })).status).toBe(403)
    expect(await findApplication(server.database.db, created.body.application_id)).not.toBeNull()
  })
})

describe('POST /applications/:id/renew-secret', () => {
  test('a new secret replaces the old one, shown once (201, as Grape answers a POST)', async () => {
    const created = await create({ name: 'Renewed', redirect_uri: 'https://renewed.example/cb', scopes: 'api' })
    const res = await request('POST', `/api/v4/applications/${created.body.id}/renew-secret`, { token: admin })
    expect(res.status).toBe(201)
    expect(Object.keys(res.body)).toEqual([...APPLICATION_KEYS, 'secret'])
    expect(res.body).toMatchObject({ id: created.body.id, application_id: created.body.application_id, application_name: 'Renewed' })
    expect(res.body.secret).toMatch(SECRET)
    expect(res.body.secret).not.toBe(created.body.secret)
    const stored = await findApplication(server.database.db, created.body.application_id)
    expect(isApplicationSecret(stored!, res.body.secret)).toBe(true)
    expect(isApplicationSecret(stored!, created.body.secret)).toBe(false)
  })

  test('404 for an unknown id; 401 and 403 for others', async () => {
    const res = await request('POST', '/api/v4/applications/999999/renew-secret', { token: admin })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ message: '404 Application Not Found' })
    expect((await request('POST', '/api/v4/applications/999999/renew-secret')).status).toBe(401)
    const forbidden = await request('POST', '/api/v4/applications/999999/renew-secret', { token: await userToken(await user()) })
    expect(forbidden.status).toBe(403)
  })
})

describe('the gitbeaker client', () => {
  test('creates, lists and removes applications', async () => {
    const api = new Gitlab({ host: server.url, token: admin })
    const created = await api.Applications.create('gitbeaker app', 'https://gitbeaker.example/cb', 'api read_user', { confidential: false })
    expect(created).toMatchObject({
      application_name: 'gitbeaker app',
      callback_url: 'https://gitbeaker.example/cb',
      confidential: false,
    })
    expect(created.application_id).toMatch(UID)
    expect(created.secret).toMatch(SECRET)

    const all = await api.Applications.all()
    expect(all.map((a) => a.id)).toContain(created.id)
    expect(all.find((a) => a.id === created.id)).not.toHaveProperty('secret')

    await api.Applications.remove(created.id)
    expect((await api.Applications.all()).map((a) => a.id)).not.toContain(created.id)
    await expect(api.Applications.remove(created.id)).rejects.toThrow()
  })

  test('a user without administrator rights is refused', async () => {
    const api = new Gitlab({ host: server.url, token: await userToken(await user()) })
    await expect(api.Applications.create('x', 'https://x.example/cb', 'api')).rejects.toThrow(/Forbidden/)
  })
})
