import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { MissingParam, ParamError } from '../../core/errors.js'
import type { ClusterRow } from '../../db/schema.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { mergedParams, type ApiRouter } from '../../http/route.js'
import { presentBasicProject, projectPresentOptions, viewOfLoaded } from '../projects/index.js'
import { findUsersByIds } from '../users/index.js'
import { presentCluster } from './present.js'
import { ClusterJson, ClusterListResponse, ClusterParams, CreateClusterParams, ListClustersParams, UpdateClusterParams } from './schemas.js'
import { createCluster, deleteCluster, listClusters, showCluster, updateCluster } from './service.js'
import { findProject, type LoadedProject } from '../access/index.js'

function presentOptions(ctx: Context) {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

async function creators(ctx: Context, clusters: ClusterRow[]): Promise<Map<number, User>> {
  const ids = clusters.flatMap((cluster) => (cluster.user_id === null ? [] : [cluster.user_id]))
  return new Map((await findUsersByIds(ctx.db, ids)).map((user) => [user.id, user]))
}

/** Entities::ClusterProject: the cluster with its creator and the project as BasicProjectDetails. */
async function presentClusterProject(ctx: Context, loaded: LoadedProject, cluster: ClusterRow) {
  const users = await creators(ctx, [cluster])
  const project = presentBasicProject(await viewOfLoaded(ctx, loaded), projectPresentOptions(ctx))
  return presentCluster(cluster, { user: users.get(cluster.user_id ?? 0) ?? null, present: presentOptions(ctx), project })
}

/**
 * Grape's nested `requires` of `platform_kubernetes_attributes`: a missing member is named with its parent; a
 * blank API URL is refused (`allow_blank: false`).
 */
function platformProblem(raw: Record<string, unknown>) {
  const platform = raw.platform_kubernetes_attributes
  if (platform === null || typeof platform !== 'object' || Array.isArray(platform)) return
  const attributes = platform as Record<string, unknown>
  for (const key of ['api_url', 'token']) {
    if (attributes[key] === undefined || attributes[key] === null) throw new MissingParam(`platform_kubernetes_attributes[${key}]`)
  }
  if (typeof attributes.api_url === 'string' && attributes.api_url.trim() === '') {
    throw new ParamError('platform_kubernetes_attributes[api_url] is empty')
  }
}

/** A project's registered Kubernetes clusters (GL API::ProjectClusters). */
export function registerClusterRoutes(api: ApiRouter) {
  api.get('/projects/:id/clusters', { params: ListClustersParams, response: { 200: ClusterListResponse } }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const loaded = await findProject(ctx, input.id)
    const list = await listClusters(ctx, loaded, page, perPage)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, list)
    const users = await creators(ctx, list.rows)
    const options = presentOptions(ctx)
    return list.rows.map((cluster) => presentCluster(cluster, { user: users.get(cluster.user_id ?? 0) ?? null, present: options }))
  })

  api.get('/projects/:id/clusters/:cluster_id', { params: ClusterParams, response: { 200: ClusterJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    return presentClusterProject(ctx, loaded, await showCluster(ctx, loaded, input.cluster_id))
  })

  api.post('/projects/:id/clusters/user', { params: CreateClusterParams, response: { 201: ClusterJson } }, async (request, reply) => {
    const { ctx, input } = request
    platformProblem(mergedParams(request))
    const loaded = await findProject(ctx, input.id)
    const platform = input.platform_kubernetes_attributes
    const cluster = await createCluster(ctx, loaded, {
      name: input.name,
      enabled: input.enabled,
      domain: input.domain,
      environmentScope: input.environment_scope,
      namespacePerEnvironment: input.namespace_per_environment,
      managed: input.managed,
      apiUrl: platform.api_url ?? '',
      token: platform.token ?? '',
      caCert: platform.ca_cert,
      namespace: platform.namespace,
      authorizationType: platform.authorization_type,
    })
    return reply.code(201).send(await presentClusterProject(ctx, loaded, cluster))
  })

  api.put('/projects/:id/clusters/:cluster_id', { params: UpdateClusterParams, response: { 200: ClusterJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const platform = input.platform_kubernetes_attributes
    const cluster = await updateCluster(ctx, loaded, input.cluster_id, {
      name: input.name,
      domain: input.domain,
      environmentScope: input.environment_scope,
      namespacePerEnvironment: input.namespace_per_environment,
      enabled: input.enabled,
      managed: input.managed,
      platform: platform && { apiUrl: platform.api_url, token: platform.token, caCert: platform.ca_cert, namespace: platform.namespace },
    })
    return presentClusterProject(ctx, loaded, cluster)
  })

  api.delete('/projects/:id/clusters/:cluster_id', { params: ClusterParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteCluster(ctx, loaded, input.cluster_id, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })
}
