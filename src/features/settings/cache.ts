import { defaultSettings, type Settings } from '../../core/settings.js'
import type { Db } from '../../db/index.js'
import { listSettingRows } from './store.js'

/** How long a node trusts its copy of the settings before reading them again. */
export const SETTINGS_TTL_MS = 1000

/**
 * Settings live in the database so every node sees one value; each node keeps a copy for at most
 * SETTINGS_TTL_MS, and drops it at once when it (or, through Redis, another node) changes them.
 */
export class SettingsCache {
  private value: Settings | null = null
  private loadedAt = 0
  private loading: Promise<Settings> | null = null

  constructor(private readonly db: Db) {}

  async current(): Promise<Settings> {
    if (this.value && Date.now() - this.loadedAt < SETTINGS_TTL_MS) return this.value
    this.loading ??= this.load().finally(() => {
      this.loading = null
    })
    return this.loading
  }

  invalidate() {
    this.value = null
  }

  private async load(): Promise<Settings> {
    const settings: Settings = { ...defaultSettings }
    for (const row of await listSettingRows(this.db)) {
      if (Object.hasOwn(defaultSettings, row.name)) (settings as unknown as Record<string, unknown>)[row.name] = JSON.parse(row.value)
    }
    this.value = settings
    this.loadedAt = Date.now()
    return settings
  }
}
