import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findUserById, findUserByUsername } from './store.js'

let server: TestServer
let request: ReturnType<typeof client>
let root: User
let member: User
let memberToken: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  root = (await findUserByUsername(server.database.db, 'root'))!
  member = await createTestUser(server.database.db, { username: 'member' })
  memberToken = (await createTestToken(server.database.db, member)).value
})
afterAll(() => server.close())

async function post(path: string, token: string | undefined = server.rootToken) {
  return request('POST', `/api/v4${path}`, { token })
}

async function stateOf(user: User): Promise<string | undefined> {
  return (await findUserById(server.database.db, user.id))?.state
}

describe('block and unblock', () => {
  test('block answers true, then null; the blocked user is locked out until unblocked', async () => {
    const user = await createTestUser(server.database.db)
    const token = (await createTestToken(server.database.db, user)).value
    const first = await post(`/users/${user.id}/block`)
    expect(first.status).toBe(201)
    expect(first.headers['content-type']).toBe('application/json')
    expect(first.text).toBe('true')
    const again = await post(`/users/${user.id}/block`)
    expect(again.status).toBe(201)
    expect(again.text).toBe('null')
    expect(await stateOf(user)).toBe('blocked')

    const locked = await request('GET', '/api/v4/user', { token })
    expect(locked.status).toBe(403)
    expect(locked.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' })
    const listed = await request('GET', '/api/v4/users?blocked=true', { token: server.rootToken })
    expect(listed.body.map((u: { id: number }) => u.id)).toEqual([user.id])

    const unblock = await post(`/users/${user.id}/unblock`)
    expect(unblock.status).toBe(201)
    expect(unblock.text).toBe('true')
    expect(await stateOf(user)).toBe('active')
    expect((await request('GET', '/api/v4/user', { token })).status).toBe(200)
    const unblockActive = await post(`/users/${user.id}/unblock`)
    expect(unblockActive.status).toBe(201)
    expect(unblockActive.text).toBe('false')
  })

  test('an administrator cannot block themselves', async () => {
    const res = await post(`/users/${root.id}/block`)
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden - The API initiating user cannot be blocked by the API' })
    expect(await stateOf(root)).toBe('active')
  })

  test('LDAP-blocked users are left to LDAP', async () => {
    const user = await createTestUser(server.database.db, { state: 'ldap_blocked' })
    const block = await post(`/users/${user.id}/block`)
    expect(block.status).toBe(403)
    expect(block.body).toEqual({ message: '403 Forbidden - LDAP blocked users cannot be modified by the API' })
    const unblock = await post(`/users/${user.id}/unblock`)
    expect(unblock.status).toBe(403)
    expect(unblock.body).toEqual({ message: '403 Forbidden - LDAP blocked users cannot be unblocked by the API' })
    const activate = await post(`/users/${user.id}/activate`)
    expect(activate.status).toBe(403)
    expect(activate.body).toEqual({ message: '403 Forbidden - A blocked user must be unblocked to be activated' })
    expect(await stateOf(user)).toBe('ldap_blocked')
  })

  test('a deactivated user cannot be unblocked, but can be blocked', async () => {
    const user = await createTestUser(server.database.db, { state: 'deactivated' })
    const unblock = await post(`/users/${user.id}/unblock`)
    expect(unblock.status).toBe(403)
    expect(unblock.body).toEqual({ message: '403 Forbidden - Deactivated users cannot be unblocked by the API' })
    const block = await post(`/users/${user.id}/block`)
    expect(block.text).toBe('true')
    expect(await stateOf(user)).toBe('blocked')
  })
})

describe('deactivate and activate', () => {
  test('deactivate answers true, then null; activate answers true, then false', async () => {
    const user = await createTestUser(server.database.db)
    const token = (await createTestToken(server.database.db, user)).value
    const first = await post(`/users/${user.id}/deactivate`)
    expect(first.status).toBe(201)
    expect(first.text).toBe('true')
    const again = await post(`/users/${user.id}/deactivate`)
    expect(again.status).toBe(201)
    expect(again.text).toBe('null')
    expect(await stateOf(user)).toBe('deactivated')

    const locked = await request('GET', '/api/v4/user', { token })
    expect(locked.status).toBe(403)
    expect(locked.body).toEqual({
      message:
        '403 Forbidden - Your account has been deactivated by your administrator. ' +
        `Please log back in from a web browser to reactivate your account at ${server.url}`,
    })

    const activate = await post(`/users/${user.id}/activate`)
    expect(activate.status).toBe(201)
    expect(activate.text).toBe('true')
    const activeAgain = await post(`/users/${user.id}/activate`)
    expect(activeAgain.status).toBe(201)
    expect(activeAgain.text).toBe('false')
    expect(await stateOf(user)).toBe('active')
  })

  test('blocked users cannot be deactivated nor activated', async () => {
    const user = await createTestUser(server.database.db, { state: 'blocked' })
    const deactivate = await post(`/users/${user.id}/deactivate`)
    expect(deactivate.status).toBe(403)
    expect(deactivate.body).toEqual({ message: 'Error occurred. A blocked user cannot be deactivated' })
    const activate = await post(`/users/${user.id}/activate`)
    expect(activate.status).toBe(403)
    expect(activate.body).toEqual({ message: '403 Forbidden - A blocked user must be unblocked to be activated' })
    expect(await stateOf(user)).toBe('blocked')
  })

  test('users active in the last 90 days cannot be deactivated', async () => {
    const today = new Date().toISOString().slice(0, 10)
    const user = await createTestUser(server.database.db, { last_activity_on: today })
    const res = await post(`/users/${user.id}/deactivate`)
    expect(res.status).toBe(403)
    expect(res.body).toEqual({
      message: 'The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated',
    })
    expect(await stateOf(user)).toBe('active')
    server.travel(91 * 86_400_000)
    const later = await post(`/users/${user.id}/deactivate`)
    expect(later.status).toBe(201)
    expect(later.text).toBe('true')
  })
})

describe('state changes: who may, and to whom', () => {
  for (const action of ['block', 'unblock', 'deactivate', 'activate']) {
    test(action, async () => {
      const unknown = await post(`/users/987654/${action}`)
      expect(unknown.status).toBe(404)
      expect(unknown.body).toEqual({ message: '404 User Not Found' })
      const word = await post(`/users/member/${action}`)
      expect(word.status).toBe(404)
      expect(word.body).toEqual({ error: '404 Not Found' })
      const user = await post(`/users/${root.id}/${action}`, memberToken)
      expect(user.status).toBe(403)
      expect(user.body).toEqual({ message: '403 Forbidden' })
      const anonymous = await post(`/users/${root.id}/${action}`, '')
      expect(anonymous.status).toBe(401)
      expect(anonymous.body).toEqual({ message: '401 Unauthorized' })
      expect(await stateOf(root)).toBe('active')
    })
  }
})
