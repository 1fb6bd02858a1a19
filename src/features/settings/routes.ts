import type { FastifyRequest } from 'fastify'
import type { ApiRouter } from '../../http/route.js'
import { mergedParams } from '../../http/route.js'
import type { SettingsCache } from './cache.js'
import { authorizeSettings } from './policy.js'
import { presentSettings } from './present.js'
import { checkSettingsParamGroups, SettingsJson, UpdateSettingsParams, type UpdateSettingsInput } from './schemas.js'
import { getSettings, updateSettings } from './service.js'

// Grape runs `before { authenticated_as_admin! }` ahead of param validation: non-admins get 403 whatever they send.
const adminOnly = { before: (request: FastifyRequest) => authorizeSettings(request.ctx.caller) }

export function registerSettingsRoutes(api: ApiRouter, cache: SettingsCache) {
  api.get('/application/settings', { ...adminOnly, response: { 200: SettingsJson } }, async (request) => {
    return presentSettings(await getSettings(request.ctx))
  })

  api.put('/application/settings', { ...adminOnly, params: UpdateSettingsParams, response: { 200: SettingsJson } }, async (request) => {
    checkSettingsParamGroups(mergedParams(request))
    return presentSettings(await updateSettings(request.ctx, cache, request.input as UpdateSettingsInput))
  })
}
