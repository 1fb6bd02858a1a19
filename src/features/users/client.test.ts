import { Gitlab } from '@gitbeaker/rest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestToken } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let gitlab: InstanceType<typeof Gitlab>

beforeAll(async () => {
  server = await startTestServer()
  gitlab = new Gitlab({ host: server.url, token: server.rootToken })
})
afterAll(() => server.close())

describe('the gitbeaker client', () => {
  test('reads the current user', async () => {
    const me = await gitlab.Users.showCurrentUser()
    expect(me.username).toBe('root')
    expect(me.is_admin).toBe(true)
    expect(me.web_url).toBe(`${server.url}/root`)
  })

  test('creates, edits, reads, blocks, unblocks and removes users', async () => {
    const created = await gitlab.Users.create({
      email: 'gb@example.com',
      username: 'gitbeaker',
      name: 'Git Beaker',
      password: 'gitbeaker-pass',
      skipConfirmation: true,
    })
    expect(created).toMatchObject({ username: 'gitbeaker', email: 'gb@example.com', is_admin: false, state: 'active' })

    // gitbeaker sends edits as a multipart form (with its option names as given, so only one-word names arrive).
    const edited = await gitlab.Users.edit(created.id, { bio: 'Test client', location: 'Lab' })
    expect(edited).toMatchObject({ bio: 'Test client', location: 'Lab' })

    const shown = await gitlab.Users.show(created.id)
    expect(shown).toMatchObject({ id: created.id, username: 'gitbeaker', bio: 'Test client' })

    await gitlab.Users.block(created.id)
    expect((await gitlab.Users.show(created.id)).state).toBe('blocked')
    await gitlab.Users.unblock(created.id)
    expect((await gitlab.Users.show(created.id)).state).toBe('active')

    await gitlab.Users.remove(created.id)
    await expect(gitlab.Users.show(created.id)).rejects.toMatchObject({ cause: { description: '404 User Not Found' } })
  })

  test('a user token sees itself through the client, and a conflict is reported', async () => {
    const duplicate = gitlab.Users.create({ email: 'admin@example.com', username: 'again', name: 'Again', password: 'password1' })
    await expect(duplicate).rejects.toMatchObject({ cause: { description: 'Email has already been taken' } })
    const user = await gitlab.Users.create({ email: 'self@example.com', username: 'selfie', name: 'Self', password: 'password1' })
    const token = await createTestToken(server.database.db, { id: user.id }, { scopes: ['read_user'] })
    const own = new Gitlab({ host: server.url, token: token.value })
    expect((await own.Users.showCurrentUser()).username).toBe('selfie')
  })

  test('pages through users by offset and by keyset', async () => {
    for (let i = 0; i < 5; i++) {
      await gitlab.Users.create({ email: `page${i}@example.com`, username: `page${i}`, name: `Page ${i}`, password: 'password1' })
    }
    const firstTwoPages = await gitlab.Users.all({ perPage: 2, maxPages: 2 })
    expect(firstTwoPages).toHaveLength(4)

    const everyone = await gitlab.Users.all({ perPage: 2 })
    const all = await gitlab.Users.all({ perPage: 100 })
    expect(everyone.map((u) => u.id)).toEqual(all.map((u) => u.id))

    const withInfo = await gitlab.Users.all({ perPage: 3, page: 2, showExpanded: true })
    expect(withInfo.paginationInfo).toMatchObject({ current: 2, perPage: 3, previous: 1, total: all.length })

    const keyset = await gitlab.Users.all({ pagination: 'keyset', orderBy: 'username', sort: 'asc', perPage: 3 })
    expect(keyset.map((u) => u.username)).toEqual(all.map((u) => u.username).sort())
  })
})
