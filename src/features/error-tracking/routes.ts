import type { FastifyRequest } from 'fastify'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { listErrorEvents, listErrors, showError, updateError } from './errors.js'
import { authorizeAdminOperations, authorizeReadErrors, authorizeUpdateErrors } from './policy.js'
import { presentClientKey, presentDetailedError, presentError, presentErrorEvent, presentSettings } from './present.js'
import {
  ClientKeyJson,
  ClientKeyListJson,
  ClientKeyParams,
  DetailedErrorJson,
  ErrorEventListJson,
  ErrorEventsParams,
  ErrorListJson,
  ErrorParams,
  ListErrorsParams,
  UpdateErrorParams,
  ListClientKeysParams,
  PatchSettingsParams,
  ProjectParams,
  PutSettingsParams,
  SettingsJson,
} from './schemas.js'
import { createClientKey, deleteClientKey, listClientKeys, showSettings, updateSettings, type SettingsInput } from './settings.js'
import { findProject, type LoadedProject } from '../access/index.js'

/** Grape's `before { authorize! :admin_operations, user_project }`: refusals come before parameter errors. */
async function adminOperations(request: FastifyRequest, raw: Record<string, unknown>) {
  authorizeAdminOperations((await findProject(request.ctx, String(raw.id))).access)
}

/** GL `read_sentry_issue` before parameters are read. */
async function readErrors(request: FastifyRequest, raw: Record<string, unknown>) {
  const loaded = await findProject(request.ctx, String(raw.id))
  authorizeReadErrors(loaded.access, loaded.project)
}

/** GL `update_sentry_issue` before parameters are read. */
async function updateErrors(request: FastifyRequest, raw: Record<string, unknown>) {
  const loaded = await findProject(request.ctx, String(raw.id))
  authorizeUpdateErrors(loaded.access, loaded.project)
}

function errorOptions(ctx: FastifyRequest['ctx'], loaded: LoadedProject) {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path }
}

const ERRORS = '/projects/:id/error_tracking/errors'
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

  api.get(ERRORS, { params: ListErrorsParams, before: readErrors, response: { 200: ErrorListJson } }, async (request, reply) => {
    const { ctx, input } = request
    const window = offsetWindow(input, ctx.settings)
    const loaded = await findProject(ctx, input.id)
    const page = await listErrors(ctx, loaded, {
      status: input.status,
      search: input.search_term ?? input.query,
      sort: input.sort,
      page: window.page,
      perPage: window.perPage,
    })
    setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
    const options = errorOptions(ctx, loaded)
    return page.rows.map((error) => presentError(error, options))
  })

  api.get(`${ERRORS}/:error_id`, { params: ErrorParams, before: readErrors, response: { 200: DetailedErrorJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    return presentDetailedError(await showError(ctx, loaded, input.error_id), errorOptions(ctx, loaded))
  })

  api.put(
    `${ERRORS}/:error_id`,
    { params: UpdateErrorParams, before: updateErrors, response: { 200: DetailedErrorJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return presentDetailedError(await updateError(ctx, loaded, input.error_id, input.status), errorOptions(ctx, loaded))
    },
  )

  api.get(
    `${ERRORS}/:error_id/events`,
    { params: ErrorEventsParams, before: readErrors, response: { 200: ErrorEventListJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const window = offsetWindow(input, ctx.settings)
      const page = await listErrorEvents(ctx, await findProject(ctx, input.id), input.error_id, window.page, window.perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      return page.rows.map(presentErrorEvent)
    },
  )
}
