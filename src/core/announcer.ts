import type { Redis } from 'ioredis'
import type { Log } from './context.js'
import type { Link } from './link.js'

/** Hears one topic's announcements; `null` means some may have been missed (a lost connection): drop everything. */
export type AnnouncementListener = (message: string | null) => void

/**
 * Tells the other nodes and processes of one deployment that something they keep a copy of has changed, so they
 * drop it. Best effort: whoever caches also bounds its staleness with a time to live, which is the bound when an
 * announcement is lost.
 */
export interface Announcer {
  /** Sends `message` on `topic` to every other node and process; never throws. */
  announce(topic: string, message: string): Promise<void>
  /** Calls `listener` with what the others announce on `topic`. */
  listen(topic: string, listener: AnnouncementListener): Promise<void>
  close(): Promise<void>
}

/** One process alone: nobody else to tell. */
export const soleProcess: Announcer = {
  async announce() {},
  async listen() {},
  async close() {},
}

/** What a worker asks the primary process to relay, and what the primary tells the other workers. */
export const ANNOUNCE = 'announce'
export const ANNOUNCEMENT = 'announcement'

export interface RelayedAnnouncement {
  topic: string
  message: string
}

/**
 * Announcements between the worker processes of one `svc serve` without Redis: the primary process relays each to
 * every other worker, and answers once they all have heard it (or could not), so that the change is known to every
 * worker before the request that made it is answered.
 */
export class ClusterAnnouncer implements Announcer {
  private readonly listeners = new Map<string, AnnouncementListener[]>()

  constructor(
    private readonly primary: Link,
    private readonly log?: Pick<Log, 'warn'>,
  ) {
    primary.serve<RelayedAnnouncement>(ANNOUNCEMENT, ({ topic, message }) => {
      for (const listener of this.listeners.get(topic) ?? []) listener(message)
    })
  }

  async announce(topic: string, message: string) {
    try {
      await this.primary.request(ANNOUNCE, { topic, message } satisfies RelayedAnnouncement)
    } catch (error) {
      this.log?.warn({ err: error }, `could not announce a change (${topic})`)
    }
  }

  async listen(topic: string, listener: AnnouncementListener) {
    this.listeners.set(topic, [...(this.listeners.get(topic) ?? []), listener])
  }

  async close() {
    this.listeners.clear()
  }
}

/** Announcements through Redis publish/subscribe, shared by every node of the deployment. */
export class RedisAnnouncer implements Announcer {
  private subscriber: Redis | null = null
  private readonly listeners = new Map<string, AnnouncementListener[]>()

  constructor(
    private readonly redis: Redis,
    /** Prefix of this deployment's Redis keys and channels. */
    private readonly namespace: string,
    private readonly log?: Pick<Log, 'warn'>,
  ) {}

  async announce(topic: string, message: string) {
    try {
      await this.redis.publish(this.channel(topic), message)
    } catch (error) {
      // What changed is committed; the others see it once their copies expire.
      this.log?.warn({ err: error }, `could not announce a change (${topic})`)
    }
  }

  async listen(topic: string, listener: AnnouncementListener) {
    const channel = this.channel(topic)
    const known = this.listeners.get(channel)
    if (known) {
      known.push(listener)
      return
    }
    this.listeners.set(channel, [listener])
    await this.connect().subscribe(channel)
  }

  async close() {
    const subscriber = this.subscriber
    this.subscriber = null
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect())
  }

  private channel(topic: string) {
    return `${this.namespace}:${topic}`
  }

  /** A subscribed connection can send nothing else, so it is a separate one. */
  private connect(): Redis {
    if (this.subscriber) return this.subscriber
    const subscriber = this.redis.duplicate()
    this.subscriber = subscriber
    subscriber.on('message', (channel: string, message: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener(message)
    })
    // Announcements sent while the connection was down are lost: start afresh after a reconnect.
    let connectedBefore = false
    subscriber.on('ready', () => {
      if (connectedBefore) for (const listeners of this.listeners.values()) for (const listener of listeners) listener(null)
      connectedBefore = true
    })
    // ioredis reconnects by itself; meanwhile time to live bounds staleness.
    subscriber.on('error', () => {})
    return subscriber
  }
}
