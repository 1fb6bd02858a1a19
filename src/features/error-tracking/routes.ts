import type { FastifyRequest } from 'fastify'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject } from '../projects/index.js'
import { authorizeAdminOperations } from './policy.js'
import { presentClientKey, presentSettings } from './present.js'
import {
  ClientKeyJson,
  ClientKeyListJson,
  ClientKeyParams,
  ListClientKeysParams,
  PatchSettingsParams,
  ProjectParams,
  PutSettingsParams,
  SettingsJson,
} from './schemas.js'
import { createClientKey, deleteClientKey, listClientKeys, showSettings, updateSettings, type SettingsInput } from './settings.js'

/** Grape's `before { authorize! :admin_operations, user_project }`: refusals come before parameter errors. */
async function adminOperations(request: FastifyRequest, raw: Record<string, unknown>) {
  authorizeAdminOperations((await findProject(request.ctx, String(raw.id))).access)
}

const SETTINGS = '/projects/:id/error_tracking/settings'
const CLIENT_KEYS = '/projects/:id/error_tracking/client_keys'

/** Error tracking settings, client keys and errors of a project (`/projects/:id/error_tracking/…`). */
export function registerErrorTrackingRoutes(api: ApiRouter) {
  api.get(SETTINGS, { params: ProjectParams, before: adminOperations, response: { 200: SettingsJson } }, async (request) => {
    const { ctx, input } = request
    return presentSettings(await showSettings(ctx, await findProject(ctx, input.id)))
  })

  // No response schema: a refused update answers the service's `{"message","status":"error"}` with 200, as GitLab does.
  const update = async (request: { ctx: FastifyRequest['ctx']; input: { id: string } & SettingsInput }) => {
    const { ctx, input } = request
    const result = await updateSettings(ctx, await findProject(ctx, input.id), input)
    return 'failure' in result ? result.failure : presentSettings(result.settings)
  }
  api.patch(SETTINGS, { params: PatchSettingsParams, before: adminOperations }, (request) =>
    update({ ctx: request.ctx, input: { ...request.input, create: false } }),
  )
  api.put(SETTINGS, { params: PutSettingsParams, before: adminOperations }, (request) =>
    update({ ctx: request.ctx, input: { ...request.input, create: true } }),
  )

  api.get(
    CLIENT_KEYS,
    { params: ListClientKeysParams, before: adminOperations, response: { 200: ClientKeyListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const window = offsetWindow(input, ctx.settings)
      const page = await listClientKeys(ctx, await findProject(ctx, input.id), window.page, window.perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return page.rows.map((key) => presentClientKey(key, ctx.config.externalUrl))
    },
  )

  api.post(CLIENT_KEYS, { params: ProjectParams, before: adminOperations, response: { 201: ClientKeyJson } }, async (request, reply) => {
    const { ctx, input } = request
    const key = await createClientKey(ctx, await findProject(ctx, input.id))
    return reply.code(201).send(presentClientKey(key, ctx.config.externalUrl))
  })

  api.delete(
    `${CLIENT_KEYS}/:key_id`,
    { params: ClientKeyParams, before: adminOperations, response: { 200: ClientKeyJson } },
    async (request) => {
      const { ctx, input } = request
      const key = await deleteClientKey(ctx, await findProject(ctx, input.id), input.key_id)
      return presentClientKey(key, ctx.config.externalUrl)
    },
  )
}
