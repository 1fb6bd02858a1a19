import type { ApiRouter } from '../../http/route.js'
import type { SettingsCache } from './cache.js'

export function registerSettingsRoutes(api: ApiRouter, cache: SettingsCache) {
  void api
  void cache
}
