import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from '../config/index.js'
import { client } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'

const VERSION = '/api/v4/version'

const servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** A server whose anonymous API callers may make two requests a minute per client address, and its log lines. */
async function throttledServer(env: Record<string, string>) {
  const lines: Record<string, any>[] = []
  const stream = new PassThrough()
  stream.on('data', (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    ),
  )
  const server = await startTestServer({ SVC_LOG_LEVEL: 'info', ...env }, { logStream: stream })
  servers.push(server)
  server.freeze(new Date('2026-11-28T12:00:10Z'))
  const request = client(server.url)
  const res = await request('PUT', '/api/v4/application/settings', {
    token: server.rootToken,
    body: {
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 2,
      throttle_unauthenticated_api_period_in_seconds: 60,
    },
  })
  expect(res.status).toBe(200)
  /** The status of an anonymous API request sent with X-Forwarded-For `forwardedFor` (none when null). */
  const statusFrom = async (forwardedFor: string | null) =>
    (await request('GET', VERSION, { headers: forwardedFor === null ? {} : { 'x-forwarded-for': forwardedFor } })).status
  /** The client addresses of the logged requests, in order. */
  const loggedAddresses = () => lines.filter((line) => line.msg === 'incoming request').map((line) => line.req.remoteAddress)
  return { server, statusFrom, loggedAddresses }
}

describe('SVC_TRUSTED_PROXIES and SVC_MONITORING_IP_WHITELIST', () => {
  test('take comma-separated IPv4 and IPv6 addresses and CIDR ranges', () => {
    expect(loadConfig({}).trustedProxies).toEqual([])
    expect(loadConfig({}).monitoringIpWhitelist).toEqual(['127.0.0.0/8', '::1/128'])
    const config = loadConfig({ SVC_TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1', SVC_MONITORING_IP_WHITELIST: '0.0.0.0/0' })
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1'])
    expect(config.monitoringIpWhitelist).toEqual(['0.0.0.0/0'])
  })

  test('refuse anything else at start, naming the variable and the format', () => {
    for (const [name, value] of [
      ['SVC_TRUSTED_PROXIES', 'proxy.example.com'],
      ['SVC_TRUSTED_PROXIES', '10.0.0.0/33'],
      ['SVC_TRUSTED_PROXIES', '10.0.0.0/8/8'],
      ['SVC_TRUSTED_PROXIES', '::1/129'],
      ['SVC_MONITORING_IP_WHITELIST', '127.0.0.1/x'],
      ['SVC_MONITORING_IP_WHITELIST', '300.0.0.1'],
    ]) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
      expect(() => loadConfig({ [name]: value })).toThrow(
        `${name}=${JSON.stringify(value)} is invalid: expected comma-separated IPv4 or IPv6 addresses or CIDR ranges such as 10.0.0.0/8,::1/128`,
      )
    }
  })
})

describe('the client address', () => {
  test('is the connecting peer when it is not a trusted proxy: X-Forwarded-For is ignored', async () => {
    const { statusFrom, loggedAddresses } = await throttledServer({ SVC_TRUSTED_PROXIES: '10.0.0.0/8' })
    expect(await statusFrom('203.0.113.1')).toBe(401)
    expect(await statusFrom('203.0.113.2')).toBe(401)
    // A third address in the header changes nothing: all three came from 127.0.0.1.
    expect(await statusFrom('203.0.113.3')).toBe(429)
    expect(await statusFrom(null)).toBe(429)
    expect(loggedAddresses().slice(-4)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1'])
  })

  test('is the peer when no proxy is trusted (the default)', async () => {
    const { statusFrom, loggedAddresses } = await throttledServer({})
    expect(await statusFrom('203.0.113.1')).toBe(401)
    expect(await statusFrom('203.0.113.2')).toBe(401)
    expect(await statusFrom('203.0.113.3')).toBe(429)
    expect(loggedAddresses().slice(-3)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1'])
  })

  test('comes from X-Forwarded-For sent by a trusted proxy, counted and logged per client', async () => {
    const { statusFrom, loggedAddresses } = await throttledServer({ SVC_TRUSTED_PROXIES: '127.0.0.1' })
    expect(await statusFrom('203.0.113.1')).toBe(401)
    expect(await statusFrom('203.0.113.1')).toBe(401)
    expect(await statusFrom('203.0.113.1')).toBe(429)
    // Another client behind the same proxy has its own count.
    expect(await statusFrom('203.0.113.2')).toBe(401)
    expect(await statusFrom('2001:db8::5')).toBe(401)
    // The proxy's own requests (no header) are its own client.
    expect(await statusFrom(null)).toBe(401)
    expect(loggedAddresses().slice(-6)).toEqual(['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2', '2001:db8::5', '127.0.0.1'])
  })

  test('is the right-most X-Forwarded-For entry that is not a trusted proxy, entries that are no address dropped', async () => {
    const { statusFrom, loggedAddresses } = await throttledServer({ SVC_TRUSTED_PROXIES: '127.0.0.0/8,10.1.0.0/16' })
    // What the client wrote itself (198.51.100.9) is left of the address the first trusted proxy saw.
    expect(await statusFrom('198.51.100.9, 203.0.113.1, 10.1.2.3, 127.0.0.5')).toBe(401)
    expect(await statusFrom('203.0.113.1,10.1.9.9')).toBe(401)
    expect(await statusFrom('not-an-address, 203.0.113.1, garbage')).toBe(429)
    // Nothing usable in the header: the peer is the client.
    expect(await statusFrom('unknown, ')).toBe(401)
    expect(loggedAddresses().slice(-4)).toEqual(['203.0.113.1', '203.0.113.1', '203.0.113.1', '127.0.0.1'])
  })
})

describe('the session cookie', () => {
  async function cookieFrom(server: TestServer, headers: Record<string, string>) {
    const res = await client(server.url)('GET', '/users/sign_in', { headers })
    expect(res.status).toBe(200)
    return res.headers['set-cookie']
  }

  test('is Secure when a trusted proxy says the request came by https', async () => {
    const server = await startTestServer({ SVC_TRUSTED_PROXIES: '127.0.0.1' })
    servers.push(server)
    expect(await cookieFrom(server, { 'x-forwarded-proto': 'https' })).toMatch(
      /^_svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    )
    expect(await cookieFrom(server, { 'x-forwarded-proto': 'http' })).toMatch(
      /^_svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    expect(await cookieFrom(server, {})).toMatch(/^_svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/)
  })

  test('is not made Secure by X-Forwarded-Proto from anyone else', async () => {
    const server = await startTestServer({ SVC_TRUSTED_PROXIES: '10.0.0.1' })
    servers.push(server)
    expect(await cookieFrom(server, { 'x-forwarded-proto': 'https' })).toMatch(
      /^_svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/,
    )
  })
})
