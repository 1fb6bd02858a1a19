import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { createTestToken, createTestUser } from '../../testing/factories.js'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { upsertSettingRows } from '../settings/store.js'
import { findUserByUsername } from './store.js'
import { USER_BASIC_KEYS, USER_WITH_ADMIN_KEYS, expectedBasic } from './testing.js'

let server: TestServer
let request: ReturnType<typeof client>
let api: string
let root: User
let anna: User
let bert: User
let carl: User
let dora: User
let emil: User
let annaToken: string

const ids = (body: { id: number }[]) => body.map((u) => u.id)
const usernames = (body: { username: string }[]) => body.map((u) => u.username)

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  api = `${server.url}/api/v4`
  const db = server.database.db
  root = (await findUserByUsername(db, 'root'))!
  anna = await createTestUser(db, { username: 'anna', name: 'Anna Apple', email: 'anna@example.com', external: 1 })
  bert = await createTestUser(db, { username: 'bert', name: 'Bert Banana', email: 'bert@example.com', state: 'blocked' })
  carl = await createTestUser(db, { username: 'carl', name: 'Carl Cherry', email: 'carl@example.com', admin: 1 })
  dora = await createTestUser(db, {
    username: 'dora',
    name: 'Dora Date',
    email: 'dora@example.com',
    state: 'deactivated',
    public_email: 'dora@example.com',
  })
  emil = await createTestUser(db, { username: 'emil', name: 'Emil Elder', email: 'emil@example.com', bot: 1 })
  annaToken = (await createTestToken(db, anna)).value
})
afterAll(() => server.close())

describe('GET /users: who sees what', () => {
  test('administrators get UserWithAdmin entities, newest first', async () => {
    const res = await request('GET', '/api/v4/users', { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([emil.id, dora.id, carl.id, bert.id, anna.id, root.id])
    for (const user of res.body) expect(Object.keys(user)).toEqual(USER_WITH_ADMIN_KEYS)
    expect(res.body.find((u: { id: number }) => u.id === carl.id).is_admin).toBe(true)
  })

  test('other users get UserBasic entities', async () => {
    const res = await request('GET', '/api/v4/users', { token: annaToken })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([emil, dora, carl, bert, anna, root].map((u) => expectedBasic(u, server.url)))
    for (const user of res.body) expect(Object.keys(user)).toEqual(USER_BASIC_KEYS)
  })

  test('anonymous callers must name a username', async () => {
    const refused = await request('GET', '/api/v4/users')
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual({ message: '403 Forbidden - Not authorized to access /api/v4/users' })
    const found = await request('GET', '/api/v4/users?username=BERT')
    expect(found.status).toBe(200)
    expect(found.body).toEqual([expectedBasic(bert, server.url)])
    const keyset = await request('GET', '/api/v4/users?username=bert&pagination=keyset&per_page=1')
    expect(keyset.status).toBe(200)
    expect(keyset.body).toEqual([expectedBasic(bert, server.url)])
  })

  test('read_user tokens may list users', async () => {
    const token = await createTestToken(server.database.db, anna, { scopes: ['read_user'] })
    const res = await request('GET', '/api/v4/users?username=anna', { token: token.value })
    expect(res.status).toBe(200)
    expect(usernames(res.body)).toEqual(['anna'])
  })
})

describe('GET /users: filters', () => {
  const cases: [string, () => User[]][] = [
    ['username=CARL', () => [carl]],
    ['username=car', () => []],
    ['search=ann', () => [anna]],
    ['search=cherry', () => [carl]],
    ['search=an', () => []],
    ['search=dora%40example.com', () => [dora]],
    ['active=true', () => [emil, carl, anna, root]],
    ['blocked=true', () => [bert]],
    ['external=true', () => [anna]],
    ['exclude_external=true', () => [emil, dora, carl, bert, root]],
    ['exclude_internal=true', () => [dora, carl, bert, anna, root]],
    ['admins=true', () => [carl, root]],
    ['active=true&external=true', () => [anna]],
    ['active=false', () => [emil, dora, carl, bert, anna, root]],
  ]
  for (const [query, expected] of cases) {
    test(query, async () => {
      const res = await request('GET', `/api/v4/users?${query}`, { token: server.rootToken })
      expect(res.status).toBe(200)
      expect(usernames(res.body)).toEqual(expected().map((u) => u.username))
    })
  }

  test('administrators also find users by primary e-mail; others only by public e-mail', async () => {
    const admin = await request('GET', '/api/v4/users?search=BERT%40example.com', { token: server.rootToken })
    expect(usernames(admin.body)).toEqual(['bert'])
    const user = await request('GET', '/api/v4/users?search=bert%40example.com', { token: annaToken })
    expect(usernames(user.body)).toEqual([])
    const publicEmail = await request('GET', '/api/v4/users?search=dora%40example.com', { token: annaToken })
    expect(usernames(publicEmail.body)).toEqual(['dora'])
  })

  test('non-administrators: admins, created_after and created_before are ignored', async () => {
    const res = await request('GET', '/api/v4/users?admins=true&created_after=2999-01-01T00:00:00Z', { token: annaToken })
    expect(ids(res.body)).toEqual([emil.id, dora.id, carl.id, bert.id, anna.id, root.id])
  })

  test('administrators filter by creation time', async () => {
    const after = await request('GET', `/api/v4/users?created_after=${encodeURIComponent(carl.created_at)}`, { token: server.rootToken })
    expect(usernames(after.body)).toEqual(['emil', 'dora', 'carl'])
    const before = await request('GET', `/api/v4/users?created_before=${encodeURIComponent(anna.created_at)}`, { token: server.rootToken })
    expect(usernames(before.body)).toEqual(['anna', 'root'])
  })

  test('extern_uid and provider need an administrator; no identities are kept', async () => {
    const user = await request('GET', '/api/v4/users?extern_uid=1&provider=ldap', { token: annaToken })
    expect(user.status).toBe(403)
    expect(user.body).toEqual({ message: '403 Forbidden' })
    const anonymous = await request('GET', '/api/v4/users?extern_uid=1&provider=ldap&username=anna')
    expect(anonymous.status).toBe(401)
    const admin = await request('GET', '/api/v4/users?extern_uid=1&provider=ldap', { token: server.rootToken })
    expect(admin.status).toBe(200)
    expect(admin.body).toEqual([])
  })
})

describe('GET /users: order', () => {
  test('administrators order by name, username or id, either way', async () => {
    const byName = await request('GET', '/api/v4/users?order_by=name&sort=asc', { token: server.rootToken })
    expect(usernames(byName.body)).toEqual(['root', 'anna', 'bert', 'carl', 'dora', 'emil'])
    const byUsername = await request('GET', '/api/v4/users?order_by=username&sort=desc', { token: server.rootToken })
    expect(usernames(byUsername.body)).toEqual(['root', 'emil', 'dora', 'carl', 'bert', 'anna'])
    const byCreation = await request('GET', '/api/v4/users?order_by=created_at&sort=asc', { token: server.rootToken })
    expect(ids(byCreation.body)).toEqual([root.id, anna.id, bert.id, carl.id, dora.id, emil.id])
  })

  test('non-administrators always get newest first', async () => {
    const res = await request('GET', '/api/v4/users?order_by=name&sort=asc', { token: annaToken })
    expect(ids(res.body)).toEqual([emil.id, dora.id, carl.id, bert.id, anna.id, root.id])
  })
})

describe('GET /users: bad input', () => {
  const cases: [string, object][] = [
    ['order_by=email', { error: 'order_by does not have a valid value' }],
    ['sort=up', { error: 'sort does not have a valid value' }],
    ['active=maybe', { error: 'active is invalid' }],
    ['blocked[]=true', { error: 'blocked is invalid' }],
    ['username[]=anna', { error: 'username is invalid' }],
    ['search[a]=b', { error: 'search is invalid' }],
    ['page=abc', { error: 'page is invalid' }],
    ['per_page=0', { error: 'per_page has a value not allowed' }],
    ['created_after=yesterday', { error: 'created_after is invalid' }],
    ['pagination=cursor', { error: 'pagination does not have a valid value' }],
  ]
  for (const [query, body] of cases) {
    test(query, async () => {
      const res = await request('GET', `/api/v4/users?${query}`, { token: server.rootToken })
      expect(res.status).toBe(400)
      expect(res.body).toEqual(body)
    })
  }

  test('unknown params are ignored', async () => {
    const res = await request('GET', '/api/v4/users?colour=blue&username=anna', { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(usernames(res.body)).toEqual(['anna'])
  })
})

describe('GET /users: offset pagination', () => {
  test('headers and Link keep the other params', async () => {
    const res = await request('GET', '/api/v4/users?exclude_external=true&per_page=2&page=2', { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(usernames(res.body)).toEqual(['carl', 'bert'])
    const link = (page: number) => `<${api}/users?exclude_external=true&page=${page}&per_page=2>`
    expect(res.headers['x-total']).toBe('5')
    expect(res.headers['x-total-pages']).toBe('3')
    expect(res.headers['x-page']).toBe('2')
    expect(res.headers['x-per-page']).toBe('2')
    expect(res.headers['x-next-page']).toBe('3')
    expect(res.headers['x-prev-page']).toBe('1')
    expect(res.headers.link).toBe(`${link(1)}; rel="prev", ${link(3)}; rel="next", ${link(1)}; rel="first", ${link(3)}; rel="last"`)
  })

  test('the last page has no next', async () => {
    const res = await request('GET', '/api/v4/users?per_page=4&page=2', { token: server.rootToken })
    expect(usernames(res.body)).toEqual(['anna', 'root'])
    expect(res.headers['x-next-page']).toBe('')
    expect(res.headers['x-prev-page']).toBe('1')
    expect(res.headers.link).toBe(
      `<${api}/users?page=1&per_page=4>; rel="prev", <${api}/users?page=1&per_page=4>; rel="first", <${api}/users?page=2&per_page=4>; rel="last"`,
    )
  })

  test('a page beyond the last is empty', async () => {
    const res = await request('GET', '/api/v4/users?per_page=4&page=9', { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([])
    expect(res.headers['x-page']).toBe('9')
    expect(res.headers['x-next-page']).toBe('')
    expect(res.headers['x-prev-page']).toBe('')
    expect(res.headers['x-total']).toBe('6')
    expect(res.headers.link).toBe(`<${api}/users?page=1&per_page=4>; rel="first", <${api}/users?page=2&per_page=4>; rel="last"`)
  })

  test('per_page above 100 is clamped', async () => {
    const res = await request('GET', '/api/v4/users?per_page=500', { token: server.rootToken })
    expect(res.status).toBe(200)
    expect(res.headers['x-per-page']).toBe('100')
    expect(res.body).toHaveLength(6)
  })

  test('offsets past offset_pagination_limit are refused with 405; keyset still pages', async () => {
    const db = server.database.db
    await upsertSettingRows(db, { offset_pagination_limit: 4 }, new Date().toISOString())
    server.app.settings.invalidate()
    try {
      const within = await request('GET', '/api/v4/users?per_page=2&page=2', { token: server.rootToken })
      expect(within.status).toBe(200)
      const beyond = await request('GET', '/api/v4/users?per_page=2&page=3', { token: server.rootToken })
      expect(beyond.status).toBe(405)
      expect(beyond.body).toEqual({
        error:
          'Offset pagination has a maximum allowed offset of 4 for requests that return objects of type User. ' +
          'Remaining records can be retrieved using keyset pagination.',
      })
      const keyset = await request('GET', '/api/v4/users?pagination=keyset&per_page=100', { token: server.rootToken })
      expect(keyset.status).toBe(200)
      expect(keyset.body).toHaveLength(6)
    } finally {
      await upsertSettingRows(db, { offset_pagination_limit: 50000 }, new Date().toISOString())
      server.app.settings.invalidate()
    }
  })
})

describe('GET /users: keyset pagination', () => {
  async function collect(firstPath: string, token?: string) {
    const pages: { ids: number[]; link: string | undefined }[] = []
    let url: string | null = `${server.url}${firstPath}`
    while (url && pages.length < 20) {
      const res = await request('GET', url.slice(server.url.length), { token })
      expect(res.status).toBe(200)
      expect(res.headers['x-total']).toBeUndefined()
      expect(res.headers['x-page']).toBeUndefined()
      pages.push({ ids: ids(res.body), link: res.headers.link })
      const next = /^<([^>]+)>; rel="next"$/.exec(res.headers.link ?? '')
      url = next ? next[1] : null
    }
    return pages
  }

  test('by id ascending, following the next links to an empty last page without Link', async () => {
    const pages = await collect('/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&active=false', server.rootToken)
    expect(pages.map((p) => p.ids)).toEqual([[root.id, anna.id], [bert.id, carl.id], [dora.id, emil.id], []])
    expect(pages[0].link).toMatch(
      new RegExp(`^<${api}/users\\?active=false&cursor=[\\w-]+&order_by=id&pagination=keyset&per_page=2&sort=asc>; rel="next"$`),
    )
    expect(pages[3].link).toBeUndefined()
  })

  test('a short last page has no Link', async () => {
    const pages = await collect('/api/v4/users?pagination=keyset&per_page=4', server.rootToken)
    expect(pages.map((p) => p.ids)).toEqual([
      [emil.id, dora.id, carl.id, bert.id],
      [anna.id, root.id],
    ])
    expect(pages[1].link).toBeUndefined()
  })

  test('by name and by username, with filters', async () => {
    const byName = await collect(
      '/api/v4/users?pagination=keyset&per_page=2&order_by=name&sort=desc&exclude_external=true',
      server.rootToken,
    )
    expect(byName.map((p) => p.ids)).toEqual([[emil.id, dora.id], [carl.id, bert.id], [root.id]])
    const byUsername = await collect('/api/v4/users?pagination=keyset&per_page=3&order_by=username&sort=asc', server.rootToken)
    expect(byUsername.map((p) => p.ids)).toEqual([[anna.id, bert.id, carl.id], [dora.id, emil.id, root.id], []])
  })

  test('by updated_at', async () => {
    const pages = await collect('/api/v4/users?pagination=keyset&per_page=5&order_by=updated_at&sort=asc', server.rootToken)
    expect(pages.flatMap((p) => p.ids)).toEqual([root.id, anna.id, bert.id, carl.id, dora.id, emil.id])
  })

  test('non-administrators page newest first whatever the order asked', async () => {
    const pages = await collect('/api/v4/users?pagination=keyset&per_page=3&order_by=name&sort=asc', annaToken)
    expect(pages.map((p) => p.ids)).toEqual([[emil.id, dora.id, carl.id], [bert.id, anna.id, root.id], []])
  })

  test('X-NEXT-CURSOR and X-PREV-CURSOR name the pages either side, and lead there as the cursor parameter', async () => {
    const cursor = (position: unknown[]) => Buffer.from(JSON.stringify(position)).toString('base64url')
    const path = '/api/v4/users?active=false&order_by=name&pagination=keyset&per_page=2&sort=asc'
    const get = async (query: string) => {
      const res = await request('GET', `${path}${query}`, { token: server.rootToken })
      expect(res.status).toBe(200)
      return { ids: ids(res.body), next: res.headers['x-next-cursor'], prev: res.headers['x-prev-cursor'], link: res.headers.link }
    }
    const linkTo = (value: string) =>
      `<${api}/users?active=false&cursor=${value}&order_by=name&pagination=keyset&per_page=2&sort=asc>; rel="next"`
    // By name: Administrator (root), Anna, Bert, Carl, Dora, Emil.
    const first = await get('')
    const afterAnna = cursor(['Anna Apple', anna.id])
    expect(first).toEqual({ ids: [root.id, anna.id], next: afterAnna, prev: undefined, link: linkTo(afterAnna) })

    const second = await get(`&cursor=${afterAnna}`)
    const afterCarl = cursor(['Carl Cherry', carl.id])
    const beforeBert = cursor(['Bert Banana', bert.id, 'prev'])
    expect(second).toEqual({ ids: [bert.id, carl.id], next: afterCarl, prev: beforeBert, link: linkTo(afterCarl) })

    const third = await get(`&cursor=${afterCarl}`)
    const afterEmil = cursor(['Emil Elder', emil.id])
    expect(third).toEqual({
      ids: [dora.id, emil.id],
      next: afterEmil,
      prev: cursor(['Dora Date', dora.id, 'prev']),
      link: linkTo(afterEmil),
    })

    const end = await get(`&cursor=${afterEmil}`)
    expect(end).toEqual({ ids: [], next: undefined, prev: undefined, link: undefined })

    // Back from the third page to the second, then to the first, which has nothing before it.
    expect(await get(`&cursor=${third.prev}`)).toEqual(second)
    expect(await get(`&cursor=${beforeBert}`)).toEqual(first)
  })

  test('a previous page of a descending order, shorter than per_page at the start', async () => {
    const cursor = (position: unknown[]) => Buffer.from(JSON.stringify(position)).toString('base64url')
    const res = await request(
      'GET',
      `/api/v4/users?order_by=id&pagination=keyset&per_page=4&sort=desc&cursor=${cursor([carl.id, carl.id, 'prev'])}`,
      {
        token: server.rootToken,
      },
    )
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([emil.id, dora.id])
    expect(res.headers['x-prev-cursor']).toBeUndefined()
    expect(res.headers['x-next-cursor']).toBe(cursor([dora.id, dora.id]))
  })

  test('a damaged cursor is refused', async () => {
    const damaged = [
      [{ a: 1 }, 2],
      [1, 1, 'next'],
      [1, 1, 'prev', 'prev'],
      [1, 'x', 'prev'],
    ].map((position) => Buffer.from(JSON.stringify(position)).toString('base64url'))
    for (const cursor of ['not-a-cursor', ...damaged]) {
      const res = await request('GET', `/api/v4/users?pagination=keyset&order_by=name&cursor=${cursor}`, { token: server.rootToken })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ message: '400 Bad request - Invalid cursor parameter' })
    }
  })
})
