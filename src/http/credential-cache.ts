import type { Announcer } from '../core/announcer.js'
import type { FoundToken } from './authenticate.js'

/**
 * How long a process trusts a token it looked up. A change committed by this process drops its copies at once; one
 * committed by another process over the same SQLite file is noticed before the next look-up; one committed by
 * another node is announced. This bounds staleness only when an announcement is lost.
 */
export const CREDENTIAL_TTL_MS = 5_000
/** Tokens kept at most; past it the cache starts over, so memory stays bounded whatever the tokens presented. */
const MAX_ENTRIES = 10_000
const TOPIC = 'credentials-changed'

/**
 * Tokens found by their value, so that a request does not read the token and its user on every call. A token's
 * validity (expiry, revocation) is still judged on every request from what is kept; only unknown values are never
 * kept, so guessing cannot fill the cache.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { token: FoundToken; until: number }>()
  /** Bumped by every change, so a look-up that started before it cannot store what it read. */
  private generation = 0

  constructor(
    /** The tables the look-ups read: a write to any of them drops every kept token. */
    private readonly tables: ReadonlySet<string>,
    private readonly announcer: Announcer,
    /** Makes the database report other processes' commits (db/read-cache.ts), which drop everything here. */
    private readonly noticeForeignCommits: () => void = () => {},
  ) {}

  async get(key: string, now: Date, load: () => Promise<FoundToken | null>): Promise<FoundToken | null> {
    this.noticeForeignCommits()
    const hit = this.entries.get(key)
    if (hit && hit.until > now.getTime()) return hit.token
    const generation = this.generation
    const token = await load()
    if (token && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
      this.entries.set(key, { token, until: now.getTime() + CREDENTIAL_TTL_MS })
    }
    return token
  }

  /** Called for every write through the database handle (see db/writes.ts). */
  written(tables: ReadonlySet<string> | null, committed: boolean, foreign = false) {
    if (tables === null) return this.forget()
    if (![...tables].some((table) => this.tables.has(table))) return
    this.forget()
    if (committed && !foreign) void this.announcer.announce(TOPIC, '')
  }

  /** Listens for the changes other processes and nodes commit. */
  listen() {
    return this.announcer.listen(TOPIC, () => this.forget())
  }

  private forget() {
    this.generation += 1
    this.entries.clear()
  }
}
