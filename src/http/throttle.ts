import type { Redis } from 'ioredis'
import type { Caller } from '../core/caller.js'
import type { Log } from '../core/context.js'
import type { Link } from '../core/link.js'
import { Throttled } from '../core/errors.js'
import type { Settings } from '../core/settings.js'

/** Counts requests per key in fixed windows aligned to the epoch, as Rack::Attack does. */
export interface WindowCounter {
  /** Adds one request to `key`'s window starting at `windowStartSeconds` and returns the count so far. */
  increment(key: string, windowStartSeconds: number, periodSeconds: number): Promise<number>
  close(): Promise<void>
}

/** Windows kept before old ones are swept out. */
const MEMORY_SWEEP_THRESHOLD = 100_000

/** Counters held by this process: enough for one node. */
export class MemoryCounter implements WindowCounter {
  private readonly windows = new Map<string, { start: number; end: number; count: number }>()
  private sweepAtSize = MEMORY_SWEEP_THRESHOLD

  async increment(key: string, windowStartSeconds: number, periodSeconds: number): Promise<number> {
    const window = this.windows.get(key)
    if (window && window.start === windowStartSeconds) return ++window.count
    if (this.windows.size >= this.sweepAtSize) this.sweep(windowStartSeconds)
    this.windows.set(key, { start: windowStartSeconds, end: windowStartSeconds + periodSeconds, count: 1 })
    return 1
  }

  // Only windows that have ended go: throttles with different periods share the map. The next sweep waits
  // until the map has doubled, so many live keys cannot make every request pay for a scan.
  private sweep(nowSeconds: number) {
    for (const [key, window] of this.windows) if (window.end <= nowSeconds) this.windows.delete(key)
    this.sweepAtSize = Math.max(MEMORY_SWEEP_THRESHOLD, this.windows.size * 2)
  }

  async close() {
    this.windows.clear()
  }
}

/** What a worker process asks the primary to count. */
export const COUNT = 'count'

export interface CountRequest {
  key: string
  windowStartSeconds: number
  periodSeconds: number
}

/** The primary process serves COUNT questions of its workers from one MemoryCounter, so limits hold across them. */
export function serveCounts(worker: Link, counter: MemoryCounter) {
  worker.serve<CountRequest>(COUNT, ({ key, windowStartSeconds, periodSeconds }) =>
    counter.increment(key, windowStartSeconds, periodSeconds),
  )
}

/** Counters kept by the primary process for all the workers of one `svc serve` without Redis (see serveCounts). */
export class PrimaryCounter implements WindowCounter {
  constructor(private readonly primary: Link) {}

  async increment(key: string, windowStartSeconds: number, periodSeconds: number): Promise<number> {
    return Number(await this.primary.request(COUNT, { key, windowStartSeconds, periodSeconds } satisfies CountRequest))
  }

  async close() {}
}

/** Counters in Redis, shared by every node; a key lives one second past its window, as Rack::Attack's do. */
export class RedisCounter implements WindowCounter {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {}

  async increment(key: string, windowStartSeconds: number, periodSeconds: number): Promise<number> {
    const redisKey = `${this.namespace}:throttle:${key}:${windowStartSeconds}`
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .expire(redisKey, periodSeconds + 1)
      .exec()
    const [error, count] = results?.[0] ?? [new Error('no reply from Redis'), 0]
    if (error) throw error
    return Number(count)
  }

  // The connection belongs to the app, which closes it.
  async close() {}
}

interface Throttle {
  name: string
  key: string
  limit: number
  periodSeconds: number
}

/**
 * Which API throttle applies: per user when authenticated (the token's owner, also under sudo, as
 * Rack::Attack knows only the token), per IP otherwise (GL lib/gitlab/rack_attack.rb).
 */
function throttleFor(caller: Caller, ip: string, settings: Settings): Throttle | null {
  const user = caller.sudoFrom ?? caller.user
  if (user) {
    if (!settings.throttle_authenticated_api_enabled) return null
    return {
      name: 'throttle_authenticated_api',
      key: `user:${user.id}`,
      limit: settings.throttle_authenticated_api_requests_per_period,
      periodSeconds: settings.throttle_authenticated_api_period_in_seconds,
    }
  }
  if (!settings.throttle_unauthenticated_api_enabled) return null
  return {
    name: 'throttle_unauthenticated_api',
    key: `ip:${ip}`,
    limit: settings.throttle_unauthenticated_api_requests_per_period,
    periodSeconds: settings.throttle_unauthenticated_api_period_in_seconds,
  }
}

/** The headers GitLab sends with a 429 (GL Gitlab::RackAttack.throttled_response_headers). */
export function throttledHeaders(name: string, limit: number, periodSeconds: number, observed: number, nowSeconds: number) {
  const retryAfter = periodSeconds - (nowSeconds % periodSeconds)
  const reset = nowSeconds + retryAfter
  return {
    'RateLimit-Name': name,
    'RateLimit-Limit': String(Math.ceil((limit * 60) / periodSeconds)),
    'RateLimit-Observed': String(observed),
    'RateLimit-Remaining': String(Math.max(limit - observed, 0)),
    'RateLimit-Reset': String(reset),
    'RateLimit-ResetTime': new Date(reset * 1000).toUTCString(),
    'Retry-After': String(retryAfter),
  }
}

/**
 * Paths whose POSTs are limited hard because they take passwords or mint credentials: GitLab's default
 * protected paths (ApplicationSettingImplementation::DEFAULT_PROTECTED_PATHS) and the OAuth token endpoint.
 */
export const PROTECTED_PATHS = [
  '/users/password',
  '/users/sign_in',
  '/api/v3/session.json',
  '/api/v3/session',
  '/api/v4/session.json',
  '/api/v4/session',
  '/users',
  '/users/confirmation',
  '/unsubscribes/',
  '/import/github/personal_access_token',
  '/admin/session',
  '/oauth/token',
] as const

/** GL Gitlab::RackAttack protected_paths throttles: per user when signed in, per IP otherwise. */
function protectedPathThrottleFor(caller: Caller, ip: string, settings: Settings): Throttle | null {
  if (!settings.throttle_protected_paths_enabled) return null
  const user = caller.sudoFrom ?? caller.user
  return {
    name: user ? 'throttle_authenticated_protected_paths_web' : 'throttle_unauthenticated_protected_paths',
    key: user ? `user:${user.id}` : `ip:${ip}`,
    limit: settings.throttle_protected_paths_requests_per_period,
    periodSeconds: settings.throttle_protected_paths_period_in_seconds,
  }
}

/** The protected-paths limit for a POST to one of PROTECTED_PATHS. */
export async function enforceProtectedPathThrottle(
  counter: WindowCounter,
  caller: Caller,
  ip: string,
  settings: Settings,
  now: Date,
  log?: Pick<Log, 'warn'>,
) {
  await enforce(counter, protectedPathThrottleFor(caller, ip, settings), settings, now, log)
}

/**
 * The API rate limits: per user when authenticated, per IP otherwise. A refused request gets 429 with
 * the body and headers GitLab's Rack::Attack sends (spec/gitlab-behaviour-auth.md 5.1). When the
 * counter cannot be reached the request goes through, as Rack::Attack does when its store fails.
 */
export async function enforceThrottle(
  counter: WindowCounter,
  caller: Caller,
  ip: string,
  settings: Settings,
  now: Date,
  log?: Pick<Log, 'warn'>,
) {
  await enforce(counter, throttleFor(caller, ip, settings), settings, now, log)
}

async function enforce(counter: WindowCounter, throttle: Throttle | null, settings: Settings, now: Date, log?: Pick<Log, 'warn'>) {
  if (!throttle || throttle.limit <= 0 || throttle.periodSeconds <= 0) return
  const nowSeconds = Math.floor(now.getTime() / 1000)
  const start = nowSeconds - (nowSeconds % throttle.periodSeconds)
  let observed: number
  try {
    observed = await counter.increment(`${throttle.name}:${throttle.key}`, start, throttle.periodSeconds)
  } catch (error) {
    log?.warn({ err: error }, 'rate limit counter unavailable; request let through')
    return
  }
  if (observed <= throttle.limit) return
  const headers = throttledHeaders(throttle.name, throttle.limit, throttle.periodSeconds, observed, nowSeconds)
  // Ruby's `presence`: a blank text means the default.
  const text = settings.rate_limiting_response_text?.trim() ? settings.rate_limiting_response_text : undefined
  throw new Throttled(headers, text)
}
