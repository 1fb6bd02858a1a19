import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { defaultSettings, type Settings } from '../core/settings.js'
import { createTestToken, createTestUser } from '../testing/factories.js'
import { client, type TestResponse } from '../testing/http.js'
import { startTestServer, type TestServer } from '../testing/server.js'

let server: TestServer
let request: ReturnType<typeof client>
let alice: { username: string; token: string }
let bob: { username: string; token: string }

const VERSION = '/api/v4/version'
const HOUR_MS = 3_600_000

let hoursAhead = 0
/** A moment `seconds` into a fresh hour, so every test starts in windows no earlier test used. */
function freshHourAt(seconds: number): Date {
  hoursAhead += 1
  return new Date((Math.ceil(Date.now() / HOUR_MS) + hoursAhead) * HOUR_MS + seconds * 1000)
}

async function configure(settings: Partial<Settings>) {
  const res = await request('PUT', '/api/v4/application/settings', { token: server.rootToken, body: settings })
  expect(res.status).toBe(200)
}

function rateLimitHeaders(res: TestResponse) {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('ratelimit-') || name === 'retry-after'))
}

/** What GitLab's Rack::Attack answers, for a window of `periodSeconds` holding `at`. */
function expectThrottled(
  res: TestResponse,
  expected: { name: string; limit: string; observed: number; remaining?: string; at: Date; periodSeconds: number; body?: string },
) {
  const nowSeconds = Math.floor(expected.at.getTime() / 1000)
  const retryAfter = expected.periodSeconds - (nowSeconds % expected.periodSeconds)
  const reset = nowSeconds + retryAfter
  expect(res.status).toBe(429)
  expect(res.headers['content-type']).toBe('text/plain')
  expect(res.text).toBe(expected.body ?? 'Retry later\n')
  expect(rateLimitHeaders(res)).toEqual({
    'ratelimit-name': expected.name,
    'ratelimit-limit': expected.limit,
    'ratelimit-observed': String(expected.observed),
    'ratelimit-remaining': expected.remaining ?? '0',
    'ratelimit-reset': String(reset),
    'ratelimit-resettime': new Date(reset * 1000).toUTCString(),
    'retry-after': String(retryAfter),
  })
}

beforeAll(async () => {
  server = await startTestServer()
  request = client(server.url)
  const db = server.database.db
  const first = await createTestUser(db)
  const second = await createTestUser(db)
  alice = { username: first.username, token: (await createTestToken(db, first)).value }
  bob = { username: second.username, token: (await createTestToken(db, second)).value }
})
afterAll(() => server.close())

describe('API rate limits', () => {
  test('are off by default, as in GitLab', async () => {
    server.freeze(freshHourAt(0))
    for (let i = 0; i < 5; i++) {
      const anonymous = await request('GET', VERSION)
      expect(anonymous.status).toBe(401)
      expect(rateLimitHeaders(anonymous)).toEqual({})
      expect((await request('GET', VERSION, { token: alice.token })).status).toBe(200)
    }
  })

  test('per IP for anonymous callers, with GitLab headers and body, until the window ends', async () => {
    const at = freshHourAt(15)
    server.freeze(at)
    await configure({
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 2,
      throttle_unauthenticated_api_period_in_seconds: 60,
    })
    try {
      // Refused requests count too: Rack::Attack stands before the API.
      expect((await request('GET', VERSION)).status).toBe(401)
      expect((await request('GET', '/api/v4/application/settings')).status).toBe(401)
      const limit = { name: 'throttle_unauthenticated_api', limit: '2', at, periodSeconds: 60 }
      expectThrottled(await request('GET', VERSION), { ...limit, observed: 3 })
      expectThrottled(await request('PUT', '/api/v4/application/settings', { body: { signup_enabled: false } }), { ...limit, observed: 4 })

      // Authenticated callers have their own throttle, off here; health checks are never throttled.
      expect((await request('GET', VERSION, { token: alice.token })).status).toBe(200)
      expect((await request('GET', '/-/health')).status).toBe(200)
      expect((await request('GET', '/-/liveness')).status).toBe(200)

      // The window ends at the next minute: 45 s later the count starts again.
      server.travel(44_000)
      expectThrottled(await request('GET', VERSION), { ...limit, observed: 5, at: new Date(at.getTime() + 44_000) })
      server.travel(1_000)
      expect((await request('GET', VERSION)).status).toBe(401)
      expect((await request('GET', VERSION)).status).toBe(401)
      expectThrottled(await request('GET', VERSION), { ...limit, observed: 3, at: new Date(at.getTime() + 45_000) })
    } finally {
      await configure({ throttle_unauthenticated_api_enabled: false })
    }
  })

  test('a request whose token fails counts against its IP', async () => {
    const at = freshHourAt(0)
    server.freeze(at)
    await configure({
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 2,
      throttle_unauthenticated_api_period_in_seconds: 60,
    })
    try {
      const bogus = await request('GET', VERSION, { token: 'svcpat-not-a-token' })
      expect(bogus.status).toBe(401)
      expect(bogus.body).toEqual({ message: '401 Unauthorized' })
      expect((await request('GET', VERSION)).status).toBe(401)
      expectThrottled(await request('GET', VERSION, { token: 'svcpat-not-a-token' }), {
        name: 'throttle_unauthenticated_api',
        limit: '2',
        observed: 3,
        at,
        periodSeconds: 60,
      })
    } finally {
      await configure({ throttle_unauthenticated_api_enabled: false })
    }
  })

  test('per user for authenticated callers, each user counted apart, the limit shown per minute', async () => {
    const at = freshHourAt(100)
    server.freeze(at)
    await configure({
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 3,
      throttle_authenticated_api_period_in_seconds: 120,
    })
    // 3 per 120 s is 1.5 per minute: RateLimit-Limit rounds up to 2.
    const limit = { name: 'throttle_authenticated_api', limit: '2', at, periodSeconds: 120 }
    try {
      for (let i = 0; i < 3; i++) expect((await request('GET', VERSION, { token: alice.token })).status).toBe(200)
      expectThrottled(await request('GET', VERSION, { token: alice.token }), { ...limit, observed: 4 })
      expectThrottled(await request('GET', '/api/v4/application/settings', { token: alice.token }), { ...limit, observed: 5 })

      for (let i = 0; i < 3; i++) expect((await request('GET', VERSION, { token: bob.token })).status).toBe(200)
      expectThrottled(await request('GET', VERSION, { token: bob.token }), { ...limit, observed: 4 })

      // Anonymous callers fall under the IP throttle, which is off.
      expect((await request('GET', VERSION)).status).toBe(401)

      // Under sudo the token's owner is counted, not the user acted for.
      const sudo = await request('GET', VERSION, { token: server.rootToken, headers: { sudo: alice.username } })
      expect(sudo.status).toBe(200)

      // 20 s later a new 120-second window starts.
      server.travel(20_000)
      expect((await request('GET', VERSION, { token: alice.token })).status).toBe(200)
    } finally {
      await configure({ throttle_authenticated_api_enabled: false })
    }
  })

  test('the 429 body is the configured text, followed by a newline', async () => {
    const at = freshHourAt(30)
    server.freeze(at)
    await configure({
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 1,
      throttle_unauthenticated_api_period_in_seconds: 3600,
      rate_limiting_response_text: 'Too many requests: wait an hour',
    })
    try {
      expect((await request('GET', VERSION)).status).toBe(401)
      expectThrottled(await request('GET', VERSION), {
        name: 'throttle_unauthenticated_api',
        limit: '1',
        observed: 2,
        at,
        periodSeconds: 3600,
        body: 'Too many requests: wait an hour\n',
      })
      // A blank text means the default.
      await configure({ rate_limiting_response_text: '  ' })
      expect((await request('GET', VERSION)).text).toBe('Retry later\n')
    } finally {
      await configure({ throttle_unauthenticated_api_enabled: false, rate_limiting_response_text: null })
    }
  })
})

describe('rate limits across nodes', () => {
  test('counters are shared through Redis, else each node counts its own', async () => {
    const at = freshHourAt(10)
    server.freeze(at)
    await configure({
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 3,
      throttle_unauthenticated_api_period_in_seconds: 60,
    })
    const other = await startTestServer({}, { sharing: server })
    other.freeze(at)
    const requestOther = client(other.url)
    const limit = { name: 'throttle_unauthenticated_api', limit: '3', at, periodSeconds: 60 }
    try {
      expect((await request('GET', VERSION)).status).toBe(401)
      expect((await request('GET', VERSION)).status).toBe(401)
      if (other.redis) {
        // One count for the deployment: the other node sees the first node's requests.
        expect((await requestOther('GET', VERSION)).status).toBe(401)
        expectThrottled(await requestOther('GET', VERSION), { ...limit, observed: 4 })
        expectThrottled(await request('GET', VERSION), { ...limit, observed: 5 })
      } else {
        // In-process counters: each node allows the full limit.
        expect((await request('GET', VERSION)).status).toBe(401)
        expectThrottled(await request('GET', VERSION), { ...limit, observed: 4 })
        for (let i = 0; i < 3; i++) expect((await requestOther('GET', VERSION)).status).toBe(401)
        expectThrottled(await requestOther('GET', VERSION), { ...limit, observed: 4 })
      }
    } finally {
      await other.close()
      await configure({ throttle_unauthenticated_api_enabled: false })
    }
  })
})

test('the defaults are GitLab’s', () => {
  expect(defaultSettings).toMatchObject({
    throttle_authenticated_api_enabled: false,
    throttle_authenticated_api_requests_per_period: 7200,
    throttle_authenticated_api_period_in_seconds: 3600,
    throttle_unauthenticated_api_enabled: false,
    throttle_unauthenticated_api_requests_per_period: 3600,
    throttle_unauthenticated_api_period_in_seconds: 3600,
  })
})
