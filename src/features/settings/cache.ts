import type { Redis } from 'ioredis'
import type { Log } from '../../core/context.js'
import type { Settings } from '../../core/settings.js'
import type { Db } from '../../db/index.js'
import { readSettings } from './store.js'

/** How long a node trusts its copy of the settings before reading them again. */
export const SETTINGS_TTL_MS = 1000

export interface SettingsCacheOptions {
  /** The app clock, so tests can travel past the TTL. */
  clock?: () => Date
  /** When set, changes are announced to every node through this connection. */
  redis?: Redis | null
  /** Prefix of this deployment's Redis keys and channels. */
  redisNamespace?: string
  log?: Pick<Log, 'warn'>
}

/**
 * Settings live in the database so every node sees one value; each node keeps a copy for at most
 * SETTINGS_TTL_MS, and drops it at once when it (or, through Redis, another node) changes them.
 */
export class SettingsCache {
  private value: Settings | null = null
  private loadedAt = 0
  /** Bumped by every invalidation, so a read that started before a change cannot store stale values. */
  private generation = 0
  private loading: Promise<Settings> | null = null
  private subscriber: Redis | null = null
  private readonly clock: () => Date
  private readonly channel: string

  constructor(
    private readonly db: Db,
    private readonly options: SettingsCacheOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date())
    this.channel = `${options.redisNamespace ?? 'svc'}:settings-changed`
  }

  async current(): Promise<Settings> {
    if (this.value && this.clock().getTime() - this.loadedAt < SETTINGS_TTL_MS) return this.value
    this.loading ??= this.load()
    return this.loading
  }

  invalidate() {
    this.generation += 1
    this.value = null
    this.loading = null
  }

  /** After a committed change: drop this node's copy and tell the other nodes to drop theirs. */
  async announceChange() {
    this.invalidate()
    const redis = this.options.redis
    if (!redis) return
    try {
      await redis.publish(this.channel, String(this.generation))
    } catch (error) {
      // The change is committed; other nodes still see it once their copy expires.
      this.options.log?.warn({ err: error }, 'could not announce a settings change')
    }
  }

  /** Listens for other nodes' changes; a subscribed connection can send nothing else, so it is a separate one. */
  async listen() {
    const redis = this.options.redis
    if (!redis || this.subscriber) return
    const subscriber = redis.duplicate()
    this.subscriber = subscriber
    subscriber.on('message', (channel: string) => {
      if (channel === this.channel) this.invalidate()
    })
    // Announcements sent while the connection was down are lost: start afresh after a reconnect.
    subscriber.on('ready', () => this.invalidate())
    // ioredis reconnects by itself; meanwhile the TTL bounds staleness.
    subscriber.on('error', () => {})
    await subscriber.subscribe(this.channel)
  }

  async close() {
    const subscriber = this.subscriber
    this.subscriber = null
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect())
  }

  private async load(): Promise<Settings> {
    const generation = this.generation
    const startedAt = this.clock().getTime()
    try {
      const settings = await readSettings(this.db)
      if (generation === this.generation) {
        this.value = settings
        this.loadedAt = startedAt
      }
      return settings
    } finally {
      if (generation === this.generation) this.loading = null
    }
  }
}
