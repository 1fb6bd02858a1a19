import type { ApiRouter } from '../../http/route.js'
import {
  listInputOf,
  presentProject,
  sendProjectList,
  projectPresentOptions,
  ProjectJson,
  ProjectListResponse,
  setListHeaders,
} from '../projects/index.js'
import { ForkProjectParams, ForkRelationParams, ListForksParams, ProjectIdParams } from './schemas.js'
import { forkProject, linkFork, listForks, unlinkFork } from './service.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { findProject } from '../access/index.js'

export function registerForkRoutes(api: ApiRouter): void {
  api.post('/projects/:id/fork', { params: ForkProjectParams, response: { 201: ProjectJson } }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const view = await forkProject(ctx, loaded, {
      namespaceId: input.namespace_id,
      namespacePath: input.namespace_path,
      namespace: input.namespace,
      name: input.name,
      path: input.path,
      description: input.description,
      visibility: input.visibility,
      mrDefaultTargetSelf: input.mr_default_target_self,
      branch: input.branches,
    })
    return reply.code(201).send(presentProject(view, projectPresentOptions(ctx)))
  })

  api.get(
    '/projects/:id/forks',
    { params: ListForksParams, authenticated: false, response: { 200: ProjectListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const list = await listForks(ctx, loaded, listInputOf(ctx, input, { kind: 'forks', projectId: loaded.project.id }, true))
      setListHeaders(request, reply, ctx, list)
      return sendProjectList(reply, ctx, list, input)
    },
  )

  api.post('/projects/:id/fork/:forked_from_id', { params: ForkRelationParams, response: { 201: ProjectJson } }, async (request, reply) => {
    const { ctx, input } = request
    const view = await linkFork(ctx, await findProject(ctx, input.id), input.forked_from_id)
    return reply.code(201).send(presentProject(view, projectPresentOptions(ctx)))
  })

  api.delete('/projects/:id/fork', { params: ProjectIdParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const removed = await unlinkFork(ctx, loaded, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    // Not a fork: 304 without a body (GL `not_modified!`).
    return reply.code(removed ? 204 : 304).send()
  })
}
