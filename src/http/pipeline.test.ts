import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestUser } from '../testing/factories.js'
import { client } from '../testing/http.js'
import { sendRaw } from '../testing/raw.js'
import { startTestServer, type TestServer } from '../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

describe('routing', () => {
  test('an unknown API route is 404 with the error key', async () => {
    const res = await request('GET', '/api/v4/no-such-thing', { token: server.rootToken })
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.body).toEqual({ error: '404 Not Found' })
  })

  test('a known path with an unknown method is 405 with Allow', async () => {
    const res = await request('DELETE', '/api/v4/version', { token: server.rootToken })
    expect(res.status).toBe(405)
    expect(res.body).toEqual({ error: '405 Not Allowed' })
    expect(res.headers.allow).toBe('OPTIONS, GET, HEAD')
  })

  test('OPTIONS on a known path lists its methods', async () => {
    const res = await request('OPTIONS', '/api/v4/version')
    expect(res.status).toBe(204)
    expect(res.headers.allow).toBe('OPTIONS, GET, HEAD')
  })

  test('the retired v3 API is gone', async () => {
    const res = await request('GET', '/api/v3/projects')
    expect(res.status).toBe(410)
    expect(res.body).toEqual({ error: 'API V3 is no longer supported. Use API V4 instead.' })
  })

  test('every response carries a request id, and a client-sent one is kept', async () => {
    const generated = await request('GET', '/api/v4/version')
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const given = await request('GET', '/api/v4/version', { headers: { 'x-request-id': 'abc-123' } })
    expect(given.headers['x-request-id']).toBe('abc-123')
    expect(given.headers['x-frame-options']).toBe('SAMEORIGIN')
    expect(given.headers['x-content-type-options']).toBe('nosniff')
  })
})

describe('request limits', () => {
  test('a request line over 8 KiB is 414', async () => {
    const res = await request('GET', `/api/v4/version?q=${'a'.repeat(9000)}`, { token: server.rootToken })
    expect(res.status).toBe(414)
    expect(res.body).toEqual({ message: '414 Request-URI Too Large' })
  })

  test('a megabyte of query string is 414, not 431', async () => {
    const res = await sendRaw(server.url, `GET /api/v4/version?q=${'a'.repeat(1024 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(res.status).toBe(414)
    expect(JSON.parse(res.body)).toEqual({ message: '414 Request-URI Too Large' })
  })

  test('a body over the limit is 413', async () => {
    const res = await request('POST', '/api/v4/users', {
      token: server.rootToken,
      body: JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ message: '413 Request Entity Too Large' })
  })
})

describe('malformed input', () => {
  test('malformed JSON is a plain-text 400', async () => {
    const res = await request('POST', '/api/v4/users', {
      token: server.rootToken,
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.text).toBe('Bad Request')
  })

  test('invalid UTF-8 in a JSON body is a plain-text 400', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
    const res = await sendRaw(
      server.url,
      Buffer.concat([
        Buffer.from(
          `POST /api/v4/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        ),
        body,
      ]),
    )
    expect(res.status).toBe(400)
    expect(res.body).toBe('Bad Request')
  })

  test('invalid UTF-8 or a NUL byte in the query string is a plain-text 400', async () => {
    for (const query of ['q=%FF%FE', 'q=a%00b', '%C3%28=1']) {
      const res = await request('GET', `/api/v4/version?${query}`, { token: server.rootToken })
      expect(res.status, query).toBe(400)
      expect(res.text).toBe('Bad Request')
    }
  })

  test('invalid UTF-8 or a NUL byte in the path is a plain-text 400', async () => {
    for (const path of ['/api/v4/users/%FF', '/api/v4/users/1%00', '/api/v4/%E0%A4%A']) {
      const res = await request('GET', path, { token: server.rootToken })
      expect(res.status, path).toBe(400)
      expect(res.text).toBe('Bad Request')
    }
  })

  test('JSON nested deeper than 32 levels, up to 100,000, is 400 with GitLab’s message', async () => {
    const nested = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`
    for (const body of [nested(33), nested(100_000), '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)]) {
      const res = await request('POST', '/api/v4/users', { token: server.rootToken, body, headers: { 'content-type': 'application/json' } })
      expect(res.status).toBe(400)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.text).toBe('{"error":"Parameters nested too deeply"}')
    }
    // 32 levels pass the check: the request reaches its route, which judges the parameters.
    const res = await request('POST', '/api/v4/users', {
      token: server.rootToken,
      body: nested(32),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.text).not.toBe('{"error":"Parameters nested too deeply"}')
  })

  test('a NUL in a JSON key or value is the plain-text 400', async () => {
    for (const body of ['{"name":"a\\u0000b"}', '{"a\\u0000b":"x"}']) {
      const res = await request('POST', '/api/v4/users', { token: server.rootToken, body, headers: { 'content-type': 'application/json' } })
      expect(res.status, body).toBe(400)
      expect(res.text).toBe('Bad Request')
    }
  })

  test('a body of an unsupported media type is 415 in Grape shape', async () => {
    const res = await request('POST', '/api/v4/users', {
      token: server.rootToken,
      body: '<user/>',
      headers: { 'content-type': 'text/xml' },
    })
    expect(res.status).toBe(415)
    expect(res.body).toEqual({ error: "The provided content-type 'text/xml' is not supported." })
  })
})

describe('parameters', () => {
  test('a path parameter wins over query and body parameters of the same name', async () => {
    const user = await createTestUser(server.database.db)
    const res = await request('PUT', `/api/v4/users/${user.id}?id=1`, { token: server.rootToken, body: { id: 1, name: 'Path Wins' } })
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(user.id)
    expect(res.body.name).toBe('Path Wins')
  })

  test('a body parameter wins over the query parameter of the same name', async () => {
    const user = await createTestUser(server.database.db)
    const res = await request('PUT', `/api/v4/users/${user.id}?name=FromQuery`, { token: server.rootToken, body: { name: 'FromBody' } })
    expect(res.status).toBe(200)
    expect(res.body.name).toBe('FromBody')
  })

  test('form bodies carry arrays as a[]= and booleans in any Grape spelling', async () => {
    const user = await createTestUser(server.database.db)
    const res = await request('POST', `/api/v4/users/${user.id}/personal_access_tokens`, {
      token: server.rootToken,
      body: 'name=ci&scopes%5B%5D=api&scopes%5B%5D=read_user',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(201)
    expect(res.body.scopes).toEqual(['api', 'read_user'])
    const update = await request('PUT', `/api/v4/users/${user.id}`, {
      token: server.rootToken,
      body: 'external=True&private_profile=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(update.status).toBe(200)
    expect(update.body.external).toBe(true)
    expect(update.body.private_profile).toBe(true)
  })

  test('query strings carry arrays and hashes', async () => {
    const user = await createTestUser(server.database.db)
    const res = await request('POST', `/api/v4/users/${user.id}/personal_access_tokens?name=q&scopes[]=read_api&scopes[]=read_user`, {
      token: server.rootToken,
    })
    expect(res.status).toBe(201)
    expect(res.body.scopes).toEqual(['read_api', 'read_user'])
  })

  test('wrong types and values are refused in Grape shape and change nothing', async () => {
    const user = await createTestUser(server.database.db)
    for (const [body, error] of [
      [{ projects_limit: 'many' }, 'projects_limit is invalid'],
      [{ projects_limit: ['1'] }, 'projects_limit is invalid'],
      [{ admin: 'perhaps' }, 'admin is invalid'],
      [{ name: { first: 'a' } }, 'name is invalid'],
      [{ projects_limit: 99999999999 }, 'projects_limit is invalid'],
    ] as const) {
      const res = await request('PUT', `/api/v4/users/${user.id}`, { token: server.rootToken, body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body).toEqual({ error })
    }
    const after = await request('GET', `/api/v4/users/${user.id}`, { token: server.rootToken })
    expect(after.body.name).toBe(user.name)
    expect(after.body.projects_limit).toBe(user.projects_limit)
    expect(after.body.is_admin).toBe(false)
  })
})

describe('methods no route has', () => {
  const headOf = (res: { head: string }) => res.head.split('\r\n').filter((line) => !/^(x-request-id|date|keep-alive):/i.test(line))

  test('TRACE, PROPFIND, MKCOL: 405 with Allow at a known path, else 404, each a complete response', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
      const known = await sendRaw(server.url, `${method} /api/v4/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      expect(known.status).toBe(405)
      expect(known.head).toContain('\r\nallow: OPTIONS, GET, HEAD\r\n')
      expect(known.body).toBe('{"error":"405 Not Allowed"}')
      const unknown = await sendRaw(server.url, `${method} /api/v4/no-such-thing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      expect(unknown.status).toBe(404)
      expect(unknown.body).toBe('{"error":"404 Not Found"}')
    }
  })

  test('CONNECT and methods Node does not parse (FOO) are answered as the router answers, then the connection is closed', async () => {
    for (const method of ['CONNECT', 'FOO']) {
      const known = await sendRaw(server.url, `${method} /api/v4/version.json?x=1 HTTP/1.1\r\nHost: x\r\n\r\n`)
      expect(headOf(known)).toEqual([
        'HTTP/1.1 405 Method Not Allowed',
        'Allow: OPTIONS, GET, HEAD',
        'Content-Type: application/json',
        'Content-Length: 27',
        'Connection: close',
      ])
      expect(known.body).toBe('{"error":"405 Not Allowed"}')
      const unknown = await sendRaw(server.url, `${method} /api/v4/no-such-thing HTTP/1.1\r\nHost: x\r\n\r\n`)
      expect(headOf(unknown)).toEqual([
        'HTTP/1.1 404 Not Found',
        'Content-Type: application/json',
        'Content-Length: 25',
        'Connection: close',
      ])
      expect(unknown.body).toBe('{"error":"404 Not Found"}')
    }
    const tunnel = await sendRaw(server.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
    expect(headOf(tunnel)).toEqual(['HTTP/1.1 400 Bad Request', 'Content-Type: text/plain', 'Content-Length: 11', 'Connection: close'])
    expect(tunnel.body).toBe('Bad Request')
  })
})
