import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { findUserById } from './store.js'

let server: TestServer
let request: ReturnType<typeof client>
let memberToken: string

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const member = await createTestUser(server.database.db)
  memberToken = (await createTestToken(server.database.db, member)).value
})
afterAll(() => server.close())

const asRoot = () => ({ token: server.rootToken })

describe('two_factor_enabled, set by administrators', () => {
  test('POST /users takes it and GET /users/:id shows it to administrators', async () => {
    const res = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'second@example.com', username: 'second', name: 'Second', password: 'correct-horse', two_factor_enabled: true },
    })
    expect(res.status).toBe(201)
    expect(res.body.two_factor_enabled).toBe(true)
    expect((await findUserById(server.database.db, res.body.id))!.two_factor_enabled).toBe(1)
    const shown = await request('GET', `/api/v4/users/${res.body.id}`, asRoot())
    expect(shown.body.two_factor_enabled).toBe(true)

    const plain = await request('POST', '/api/v4/users', {
      ...asRoot(),
      body: { email: 'plain@example.com', username: 'plain', name: 'Plain', password: 'correct-horse' },
    })
    expect(plain.body.two_factor_enabled).toBe(false)
  })

  test('PUT /users/:id turns it on and off; form values are coerced as Grape does', async () => {
    const user = await createTestUser(server.database.db)
    const on = await request('PUT', `/api/v4/users/${user.id}`, { ...asRoot(), body: { two_factor_enabled: true } })
    expect(on.status).toBe(200)
    expect(on.body.two_factor_enabled).toBe(true)
    const off = await request('PUT', `/api/v4/users/${user.id}`, { ...asRoot(), form: true, body: { two_factor_enabled: 'false' } })
    expect(off.status).toBe(200)
    expect(off.body.two_factor_enabled).toBe(false)
    expect((await findUserById(server.database.db, user.id))!.two_factor_enabled).toBe(0)
  })

  test('a value that is not a boolean is 400 and changes nothing', async () => {
    const user = await createTestUser(server.database.db)
    const res = await request('PUT', `/api/v4/users/${user.id}`, { ...asRoot(), body: { two_factor_enabled: 'perhaps' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'two_factor_enabled is invalid' })
    expect((await findUserById(server.database.db, user.id))!.two_factor_enabled).toBe(0)
  })

  test('only administrators may set it', async () => {
    const user = await createTestUser(server.database.db)
    const res = await request('PUT', `/api/v4/users/${user.id}`, { token: memberToken, body: { two_factor_enabled: true } })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ message: '403 Forbidden' })
    const anonymous = await request('PUT', `/api/v4/users/${user.id}`, { body: { two_factor_enabled: true } })
    expect(anonymous.status).toBe(401)
    expect((await findUserById(server.database.db, user.id))!.two_factor_enabled).toBe(0)
  })
})
