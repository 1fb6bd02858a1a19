import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { soleProcess } from '../core/announcer.js'
import type { FoundToken } from './authenticate.js'
import { CREDENTIAL_TTL_MS, CredentialCache } from './credential-cache.js'
import { createTestToken, createTestUser } from '../testing/factories.js'
import { client } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'

const REVOKED = {
  error: 'invalid_token',
  error_description: 'Token was revoked. You have to re-authorize from the user.',
}
const EXPIRED = {
  error: 'invalid_token',
  error_description: 'Token is expired. You can either do re-authorization or token refresh.',
}

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(async () => {
  await server.close()
})

async function userWithToken(username: string, options: { expiresAt?: string } = {}) {
  const user = await createTestUser(server.database.db, { username })
  const token = await createTestToken(server.database.db, user, options)
  return { user, token }
}

describe('a token kept by the node that serves it', () => {
  test('stops working at once when the token is revoked', async () => {
    const { token } = await userWithToken('kept-revoked')
    expect((await request('GET', '/api/v4/user', { token: token.value })).status).toBe(200)
    const revoked = await request('DELETE', `/api/v4/personal_access_tokens/${token.row.id}`, { token: server.rootToken })
    expect(revoked.status).toBe(204)
    const refused = await request('GET', '/api/v4/user', { token: token.value })
    expect(refused.status).toBe(401)
    expect(refused.body).toEqual(REVOKED)
  })

  test('stops working at once when it expires, though it is kept', async () => {
    const { token } = await userWithToken('kept-expiring', { expiresAt: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) })
    expect((await request('GET', '/api/v4/user', { token: token.value })).status).toBe(200)
    server.travel(2 * 86_400_000)
    try {
      const refused = await request('GET', '/api/v4/user', { token: token.value })
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual(EXPIRED)
    } finally {
      server.travel(-2 * 86_400_000)
    }
  })

  test("stops working at once when its user is blocked, and the user's changes show at once", async () => {
    const { user, token } = await userWithToken('kept-blocked')
    expect((await request('GET', '/api/v4/user', { token: token.value })).body).toMatchObject({ name: user.name })
    const renamed = await request('PUT', `/api/v4/users/${user.id}`, { token: server.rootToken, body: { name: 'Renamed Person' } })
    expect(renamed.status).toBe(200)
    expect((await request('GET', '/api/v4/user', { token: token.value })).body).toMatchObject({ name: 'Renamed Person' })
    expect((await request('POST', `/api/v4/users/${user.id}/block`, { token: server.rootToken })).status).toBe(201)
    const refused = await request('GET', '/api/v4/user', { token: token.value })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' })
  })
})

describe('a token kept by another node', () => {
  test(`stops working there at once over one SQLite file or through Redis, else within ${CREDENTIAL_TTL_MS} ms`, async () => {
    const other = await startTestServer({}, { sharing: server })
    const requestOther = client(other.url)
    try {
      other.freeze()
      const { token } = await userWithToken('kept-elsewhere')
      // The first use records itself on the token, a change that drops what the node kept; the second is kept.
      expect((await requestOther('GET', '/api/v4/user', { token: token.value })).status).toBe(200)
      expect((await requestOther('GET', '/api/v4/user', { token: token.value })).status).toBe(200)
      expect((await request('DELETE', `/api/v4/personal_access_tokens/${token.row.id}`, { token: server.rootToken })).status).toBe(204)
      if (other.database.engine === 'sqlite') {
        // Over one SQLite file the other node notices the commit before its next look-up.
      } else if (other.redis) {
        // The revocation was announced; give the message a moment to arrive.
        await expect.poll(async () => (await requestOther('GET', '/api/v4/user', { token: token.value })).status).toBe(401)
      } else {
        // Nobody told the other node: it trusts its copy until the bound, and not a moment longer.
        other.travel(CREDENTIAL_TTL_MS - 1)
        expect((await requestOther('GET', '/api/v4/user', { token: token.value })).status).toBe(200)
        other.travel(1)
      }
      const refused = await requestOther('GET', '/api/v4/user', { token: token.value })
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual(REVOKED)
    } finally {
      await other.close()
    }
  })
})

describe('CredentialCache', () => {
  const found = { kind: 'personal_access_token', id: 1, scopes: ['api'], expiresAt: null, revoked: false } as unknown as FoundToken
  const now = new Date()

  test('keeps what was found, never what was not', async () => {
    const cache = new CredentialCache(new Set(['personal_access_tokens']), soleProcess)
    let loads = 0
    const load = async () => (loads++, found)
    const miss = async () => (loads++, null)
    expect(await cache.get('a', now, load)).toBe(found)
    expect(await cache.get('a', now, load)).toBe(found)
    expect(loads).toBe(1)
    expect(await cache.get('b', now, miss)).toBeNull()
    expect(await cache.get('b', now, miss)).toBeNull()
    expect(loads).toBe(3)
  })

  test('drops everything on a write to a table it reads, and nothing on other writes', async () => {
    const cache = new CredentialCache(new Set(['personal_access_tokens']), soleProcess)
    let loads = 0
    const load = async () => (loads++, found)
    await cache.get('a', now, load)
    cache.written(new Set(['labels']), true)
    await cache.get('a', now, load)
    expect(loads).toBe(1)
    cache.written(new Set(['labels', 'personal_access_tokens']), false)
    await cache.get('a', now, load)
    expect(loads).toBe(2)
  })

  test('does not keep what a look-up read while a change was being made', async () => {
    const cache = new CredentialCache(new Set(['users']), soleProcess)
    let loads = 0
    let finish: (token: FoundToken) => void = () => {}
    const pending = cache.get('a', now, () => (loads++, new Promise<FoundToken>((resolve) => (finish = resolve))))
    cache.written(new Set(['users']), false)
    finish(found)
    expect(await pending).toBe(found)
    await cache.get('a', now, async () => (loads++, found))
    expect(loads).toBe(2)
  })
})
