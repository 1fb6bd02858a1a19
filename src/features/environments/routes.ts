import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { mergedParams, type ApiRouter } from '../../http/route.js'
import { presentBasicProject, projectPresentOptions, viewOfLoaded } from '../projects/index.js'
import { presentEnvironment } from './present.js'
import {
  CreateEnvironmentParams,
  EnvironmentJson,
  EnvironmentListResponse,
  EnvironmentParams,
  ListEnvironmentsParams,
  StopEnvironmentParams,
  UpdateEnvironmentParams,
} from './schemas.js'
import { createEnvironment, deleteEnvironment, listEnvironments, showEnvironment, stopEnvironment, updateEnvironment } from './service.js'
import { findProject, type LoadedProject } from '../access/index.js'

/** The project as Entities::Environment embeds it (BasicProjectDetails). */
async function embeddedProject(ctx: Context, loaded: LoadedProject) {
  return presentBasicProject(await viewOfLoaded(ctx, loaded), projectPresentOptions(ctx))
}

/** GL `optional :slug, absence: …`: the slug is generated, never given. */
function refuseSlug(raw: Record<string, unknown>) {
  if ('slug' in raw) throw new ParamError('slug is automatically generated and cannot be changed')
}

/** A project's environments (GL API::Environments). */
export function registerEnvironmentRoutes(api: ApiRouter) {
  api.get(
    '/projects/:id/environments',
    { params: ListEnvironmentsParams, response: { 200: EnvironmentListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      // Grape's `mutually_exclusive :name, :search`, checked with the other params.
      if (input.name !== undefined && input.search !== undefined) throw new ParamError('name, search cannot be used together')
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const list = await listEnvironments(ctx, loaded, { name: input.name, search: input.search, states: input.states, page, perPage })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, list)
      const project = list.rows.length > 0 ? await embeddedProject(ctx, loaded) : undefined
      return list.rows.map((environment) => presentEnvironment(environment, { project }))
    },
  )

  api.post(
    '/projects/:id/environments',
    { params: CreateEnvironmentParams, response: { 201: EnvironmentJson } },
    async (request, reply) => {
      const { ctx, input } = request
      refuseSlug(mergedParams(request))
      const loaded = await findProject(ctx, input.id)
      const environment = await createEnvironment(ctx, loaded, { name: input.name, externalUrl: input.external_url, tier: input.tier })
      return reply.code(201).send(presentEnvironment(environment, { project: await embeddedProject(ctx, loaded) }))
    },
  )

  api.get(
    '/projects/:id/environments/:environment_id',
    { params: EnvironmentParams, response: { 200: EnvironmentJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return presentEnvironment(await showEnvironment(ctx, loaded, input.environment_id), { lastDeployment: true })
    },
  )

  api.put(
    '/projects/:id/environments/:environment_id',
    { params: UpdateEnvironmentParams, response: { 200: EnvironmentJson } },
    async (request) => {
      const { ctx, input } = request
      refuseSlug(mergedParams(request))
      const loaded = await findProject(ctx, input.id)
      const environment = await updateEnvironment(ctx, loaded, input.environment_id, { externalUrl: input.external_url, tier: input.tier })
      return presentEnvironment(environment, { project: await embeddedProject(ctx, loaded) })
    },
  )

  api.delete('/projects/:id/environments/:environment_id', { params: EnvironmentParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteEnvironment(ctx, loaded, input.environment_id, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  api.post(
    '/projects/:id/environments/:environment_id/stop',
    { params: StopEnvironmentParams, response: { 200: EnvironmentJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const environment = await stopEnvironment(ctx, loaded, input.environment_id, input.force)
      return reply.code(200).send(presentEnvironment(environment, { project: await embeddedProject(ctx, loaded) }))
    },
  )
}
