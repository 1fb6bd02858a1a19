import { ParamError } from '../../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../../http/pagination.js'
import type { ApiRouter } from '../../../http/route.js'
import { presentIntegration } from './present.js'
import {
  CreateIntegrationParams,
  IntegrationJson,
  IntegrationListJson,
  IntegrationParams,
  ListIntegrationsParams,
  UPDATE_FIELDS,
  UpdateIntegrationParams,
} from './schemas.js'
import {
  createIntegration,
  deleteIntegration,
  listIntegrations,
  resetIntegrationToken,
  showIntegration,
  updateIntegration,
  type IntegrationInput,
} from './service.js'
import { findProject } from '../../access/index.js'

const BASE = '/projects/:id/alert_management/http_integrations'

function inputOf(input: CreateIntegrationParams | UpdateIntegrationParams): IntegrationInput {
  return {
    name: input.name,
    active: input.active,
    payloadExample: input.payload_example,
    payloadAttributeMappings: input.payload_attribute_mappings,
    createIncident: input.create_incident,
    autoCloseIncident: input.auto_close_incident,
    apiUrl: input.api_url,
  }
}

/** A project's alert integrations: `/projects/:id/alert_management/http_integrations`. */
export function registerAlertIntegrationRoutes(api: ApiRouter) {
  api.get(BASE, { params: ListIntegrationsParams, response: { 200: IntegrationListJson } }, async (request, reply) => {
    const { ctx, input } = request
    const window = offsetWindow(input, ctx.settings)
    const loaded = await findProject(ctx, input.id)
    const page = await listIntegrations(ctx, loaded, window)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
    return page.rows.map((row) => presentIntegration(row, ctx.config.externalUrl, loaded.project.full_path))
  })

  api.get(`${BASE}/:integration_id`, { params: IntegrationParams, response: { 200: IntegrationJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const integration = await showIntegration(ctx, loaded, input.integration_id)
    return presentIntegration(integration, ctx.config.externalUrl, loaded.project.full_path)
  })

  api.post(BASE, { params: CreateIntegrationParams, response: { 201: IntegrationJson } }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const integration = await createIntegration(ctx, loaded, input.type, inputOf(input))
    return reply.code(201).send(presentIntegration(integration, ctx.config.externalUrl, loaded.project.full_path))
  })

  api.put(
    `${BASE}/:integration_id`,
    {
      params: UpdateIntegrationParams,
      response: { 200: IntegrationJson },
      // Grape's `at_least_one_of` over the writable fields, before anything else is read.
      before(_request, raw) {
        if (!UPDATE_FIELDS.some((field) => field in raw)) {
          throw new ParamError(`${UPDATE_FIELDS.join(', ')} are missing, at least one parameter must be provided`)
        }
      },
    },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const integration = await updateIntegration(ctx, loaded, input.integration_id, inputOf(input))
      return presentIntegration(integration, ctx.config.externalUrl, loaded.project.full_path)
    },
  )

  api.delete(`${BASE}/:integration_id`, { params: IntegrationParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteIntegration(ctx, loaded, input.integration_id)
    return reply.code(204).send()
  })

  api.post(
    `${BASE}/:integration_id/reset_token`,
    { params: IntegrationParams, response: { 200: IntegrationJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const integration = await resetIntegrationToken(ctx, loaded, input.integration_id)
      return reply.code(200).send(presentIntegration(integration, ctx.config.externalUrl, loaded.project.full_path))
    },
  )
}
