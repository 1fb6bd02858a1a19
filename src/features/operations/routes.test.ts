import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { client } from '../../testing/http.js'
import { startTestServer, type TestServer } from '../../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
})
afterAll(() => server.close())

describe('operations endpoints', () => {
  test('health answers plain text', async () => {
    const res = await request('GET', '/-/health')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(res.text).toBe('Svc OK')
  })

  test('liveness and readiness report ok', async () => {
    const live = await request('GET', '/-/liveness')
    expect(live.status).toBe(200)
    expect(live.body).toEqual({ status: 'ok' })
    const ready = await request('GET', '/-/readiness')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: 'ok', master_check: [{ status: 'ok' }] })
    const all = await request('GET', '/-/readiness?all=1')
    expect(all.body.db_check).toEqual([{ status: 'ok' }])
  })

  test('readiness fails with 503 when the database is gone', async () => {
    const other = await startTestServer()
    await other.database.close()
    const res = await client(other.url)('GET', '/-/readiness')
    expect(res.status).toBe(503)
    expect(res.body.status).toBe('failed')
    await other.app.close()
  })

  test('metrics count requests by route and status', async () => {
    const count = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length) ?? 0,
      )
    const version = 'http_requests_total{method="GET",route="/api/v4/version",status="200"}'
    const unmatched = 'http_requests_total{method="GET",route="unmatched",status="404"}'
    const before = (await request('GET', '/-/metrics')).text
    await request('GET', '/api/v4/version', { token: server.rootToken })
    await request('GET', '/api/v4/version', { token: server.rootToken })
    await request('GET', '/api/v4/no/such/page')
    const res = await request('GET', '/-/metrics')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(count(res.text, version) - count(before, version)).toBe(2)
    expect(count(res.text, unmatched) - count(before, unmatched)).toBe(1)
    const buckets = [
      ...res.text.matchAll(
        /^http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/api\/v4\/version",status="200"\} (\d+)$/gm,
      ),
    ]
    expect(buckets.map((bucket) => bucket[1])).toEqual([
      '0.001',
      '0.0025',
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '+Inf',
    ])
    expect(Number(buckets.at(-1)?.[2])).toBe(count(res.text, version))
    expect(res.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/api\/v4\/version",status="200"\} \d+$/m)
  })
})

describe('monitoring endpoints and SVC_MONITORING_IP_WHITELIST', () => {
  const MONITORING_PATHS = ['/-/metrics', '/-/readiness', '/-/readiness?all=1', '/-/liveness']

  /** GL RequiresAllowlistedMonitoringClient#render_404: errors/not_found, status 404. */
  function expectRefused(res: Awaited<ReturnType<typeof request>>) {
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.text).toContain('<h1>404</h1>')
    expect(res.text).toContain("<h2>Resource you were looking for doesn't exist.</h2>")
    expect(res.text).toContain('<p>You may have mistyped the address or the page may have moved.</p>')
  }

  test('answer loopback clients by default', async () => {
    for (const path of MONITORING_PATHS) expect((await request('GET', path)).status).toBe(200)
  })

  test('refuse a client outside the whitelist with 404, and /-/health with an empty one', async () => {
    const other = await startTestServer({ SVC_MONITORING_IP_WHITELIST: '10.0.0.0/8,fd00::/8' })
    try {
      const otherRequest = client(other.url)
      for (const path of MONITORING_PATHS) expectRefused(await otherRequest('GET', path))
      const health = await otherRequest('GET', '/-/health')
      expect([health.status, health.headers['content-type'], health.text]).toEqual([404, 'text/plain; charset=utf-8', ''])
    } finally {
      await other.close()
    }
  })

  test('judge the client behind a trusted proxy by X-Forwarded-For, and ignore the header from anyone else', async () => {
    const proxied = await startTestServer({ SVC_TRUSTED_PROXIES: '127.0.0.1', SVC_MONITORING_IP_WHITELIST: '127.0.0.0/8,192.0.2.0/24' })
    try {
      const proxiedRequest = client(proxied.url)
      for (const path of MONITORING_PATHS) {
        expectRefused(await proxiedRequest('GET', path, { headers: { 'x-forwarded-for': '203.0.113.7' } }))
        expect((await proxiedRequest('GET', path, { headers: { 'x-forwarded-for': '192.0.2.44' } })).status).toBe(200)
        expect((await proxiedRequest('GET', path, { headers: { 'x-forwarded-for': '127.0.0.1' } })).status).toBe(200)
      }
    } finally {
      await proxied.close()
    }
    // Not a trusted proxy: the header cannot get anyone refused, nor let anyone in.
    for (const path of MONITORING_PATHS) {
      expect((await request('GET', path, { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200)
    }
    const closed = await startTestServer({ SVC_MONITORING_IP_WHITELIST: '192.0.2.0/24' })
    try {
      for (const path of MONITORING_PATHS)
        expectRefused(await client(closed.url)('GET', path, { headers: { 'x-forwarded-for': '192.0.2.44' } }))
    } finally {
      await closed.close()
    }
  })
})

describe('version', () => {
  test('needs authentication', async () => {
    const res = await request('GET', '/api/v4/version')
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ message: '401 Unauthorized' })
    expect(res.headers['content-type']).toBe('application/json')
  })

  test('answers GitLab metadata shape, with or without .json', async () => {
    for (const path of ['/api/v4/version', '/api/v4/version.json', '/api/v4/metadata']) {
      const res = await request('GET', path, { token: server.rootToken })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(Object.keys(res.body)).toEqual(['version', 'revision', 'kas', 'enterprise'])
      expect(res.body.kas).toEqual({ enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null })
      expect(res.body.enterprise).toBe(false)
      expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/)
    }
  })
})
