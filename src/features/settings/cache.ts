import { soleProcess, type Announcer } from '../../core/announcer.js'
import type { Settings } from '../../core/settings.js'
import type { Db } from '../../db/index.js'
import { readSettings } from './store.js'

/** How long a node trusts its copy of the settings before reading them again. */
export const SETTINGS_TTL_MS = 1000

export interface SettingsCacheOptions {
  /** The app clock, so tests can travel past the TTL. */
  clock?: () => Date
  /** Where changes are announced to the other nodes and processes. */
  announcer?: Announcer
}

const TOPIC = 'settings-changed'

/**
 * Settings live in the database so every node sees one value; each node keeps a copy for at most
 * SETTINGS_TTL_MS, and drops it at once when it (or, by announcement, another node) changes them.
 */
export class SettingsCache {
  private value: Settings | null = null
  private loadedAt = 0
  /** Bumped by every invalidation, so a read that started before a change cannot store stale values. */
  private generation = 0
  private loading: Promise<Settings> | null = null
  private readonly clock: () => Date
  private readonly announcer: Announcer

  constructor(
    private readonly db: Db,
    private readonly options: SettingsCacheOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date())
    this.announcer = options.announcer ?? soleProcess
  }

  async current(): Promise<Settings> {
    const kept = this.kept()
    if (kept) return kept
    this.loading ??= this.load()
    return this.loading
  }

  kept(): Settings | null {
    return this.value && this.clock().getTime() - this.loadedAt < SETTINGS_TTL_MS ? this.value : null
  }

  invalidate() {
    this.generation += 1
    this.value = null
    this.loading = null
  }

  /** After a committed change: drop this node's copy and tell the other nodes to drop theirs. */
  async announceChange() {
    this.invalidate()
    await this.announcer.announce(TOPIC, String(this.generation))
  }

  /** Listens for other nodes' changes. */
  async listen() {
    await this.announcer.listen(TOPIC, () => this.invalidate())
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
