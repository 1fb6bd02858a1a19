/** Entries at most; past it the cache starts over, so memory stays bounded whatever the keys. */
const MAX_ENTRIES = 10_000

/**
 * Look-ups reused for a short time (a project, an integration, a client key on an ingestion path): a change made on
 * another node takes effect within `millis`. With `keepMisses: false` a miss (null) is looked up again every time, so
 * something created a moment ago is found at once.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>()

  constructor(
    private readonly millis: number,
    private readonly options: { keepMisses?: boolean } = {},
  ) {}

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now()
    const hit = this.entries.get(key)
    if (hit && hit.until > now) return hit.value
    const value = await load()
    if (value === null && this.options.keepMisses === false) return value
    if (this.entries.size > MAX_ENTRIES) this.entries.clear()
    this.entries.set(key, { value, until: now + this.millis })
    return value
  }
}
