import { adminOnly, mergedParams, type ApiRouter } from '../../http/route.js'
import type { SettingsCache } from './cache.js'
import { presentSettings } from './present.js'
import { checkSettingsParamGroups, SettingsJson, UpdateSettingsParams, type UpdateSettingsInput } from './schemas.js'
import { getSettings, updateSettings } from './service.js'

export function registerSettingsRoutes(api: ApiRouter, cache: SettingsCache) {
  api.get('/application/settings', { before: adminOnly, response: { 200: SettingsJson } }, async (request) => {
    return presentSettings(await getSettings(request.ctx))
  })

  api.put(
    '/application/settings',
    { before: adminOnly, params: UpdateSettingsParams, response: { 200: SettingsJson } },
    async (request) => {
      checkSettingsParamGroups(mergedParams(request))
      return presentSettings(await updateSettings(request.ctx, cache, request.input as UpdateSettingsInput))
    },
  )
}
