import type { Redis } from 'ioredis'
import type { Caller } from '../core/caller.js'
import { Throttled } from '../core/errors.js'
import type { Settings } from '../core/settings.js'

/** Counts requests per key in fixed windows aligned to the epoch, as Rack::Attack does. */
export interface WindowCounter {
  /** Adds one request to `key`'s current window and returns the count so far. */
  increment(key: string, windowStartSeconds: number, periodSeconds: number): Promise<number>
  close(): Promise<void>
}

/** Counters held by this process: enough for one node. */
export class MemoryCounter implements WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>()

  async increment(key: string, windowStartSeconds: number): Promise<number> {
    const window = this.windows.get(key)
    if (window && window.start === windowStartSeconds) return ++window.count
    if (this.windows.size > 100_000) this.sweep(windowStartSeconds)
    this.windows.set(key, { start: windowStartSeconds, count: 1 })
    return 1
  }

  private sweep(currentStart: number) {
    for (const [key, window] of this.windows) if (window.start < currentStart) this.windows.delete(key)
  }

  async close() {}
}

/** Counters in Redis, shared by every node. */
export class RedisCounter implements WindowCounter {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {}

  async increment(key: string, windowStartSeconds: number, periodSeconds: number): Promise<number> {
    const redisKey = `${this.namespace}:throttle:${key}:${windowStartSeconds}`
    const results = await this.redis.multi().incr(redisKey).expire(redisKey, periodSeconds + 1).exec()
    const [error, count] = results?.[0] ?? [new Error('no reply'), 0]
    if (error) throw error
    return Number(count)
  }

  async close() {}
}

interface Throttle {
  name: string
  key: string
  limit: number
  periodSeconds: number
}

function throttleFor(caller: Caller, ip: string, settings: Settings): Throttle | null {
  if (caller.user) {
    if (!settings.throttle_authenticated_api_enabled) return null
    return {
      name: 'throttle_authenticated_api',
      key: `user:${caller.user.id}`,
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

/**
 * The API rate limits: per user when authenticated, per IP otherwise. A refused request gets 429 with
 * the headers GitLab's Rack::Attack sends (spec/gitlab-behaviour-auth.md 5.1).
 */
export async function enforceThrottle(counter: WindowCounter, caller: Caller, ip: string, settings: Settings, now: Date) {
  const throttle = throttleFor(caller, ip, settings)
  if (!throttle || throttle.limit <= 0 || throttle.periodSeconds <= 0) return
  const nowSeconds = Math.floor(now.getTime() / 1000)
  const start = nowSeconds - (nowSeconds % throttle.periodSeconds)
  const observed = await counter.increment(`${throttle.name}:${throttle.key}`, start, throttle.periodSeconds)
  if (observed <= throttle.limit) return
  const reset = start + throttle.periodSeconds
  throw new Throttled({
    'RateLimit-Name': throttle.name,
    'RateLimit-Limit': String(Math.ceil((throttle.limit * 60) / throttle.periodSeconds)),
    'RateLimit-Observed': String(observed),
    'RateLimit-Remaining': String(Math.max(throttle.limit - observed, 0)),
    'RateLimit-Reset': String(reset),
    'RateLimit-ResetTime': new Date(reset * 1000).toUTCString(),
    'Retry-After': String(reset - nowSeconds),
  })
}
