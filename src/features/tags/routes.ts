import type { Context } from '../../core/context.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject, type LoadedProject } from '../access/index.js'
import { presentTag } from './present.js'
import { CreateTagParams, ListTagsParams, TagJson, TagListResponse, TagParams } from './schemas.js'
import { createTag, deleteTag, listTags, showTag } from './service.js'

function presentOptions(ctx: Context, loaded: LoadedProject) {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path }
}

export function registerTagRoutes(api: ApiRouter) {
  // ----- GL lib/api/tags.rb -----

  api.get(
    '/projects/:id/repository/tags',
    { params: ListTagsParams, response: { 200: TagListResponse }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const list = await listTags(ctx, loaded, { orderBy: input.order_by, sort: input.sort, search: input.search, page, perPage })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, list)
      const options = presentOptions(ctx, loaded)
      return list.rows.map((tag) => presentTag(tag, options))
    },
  )

  api.get(
    '/projects/:id/repository/tags/:tag_name',
    { params: TagParams, response: { 200: TagJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return presentTag(await showTag(ctx, loaded, input.tag_name), presentOptions(ctx, loaded))
    },
  )

  api.post('/projects/:id/repository/tags', { params: CreateTagParams, response: { 201: TagJson } }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const tag = await createTag(ctx, loaded, { name: input.tag_name, ref: input.ref, message: input.message })
    return reply.code(201).send(presentTag(tag, presentOptions(ctx, loaded)))
  })

  api.delete('/projects/:id/repository/tags/:tag_name', { params: TagParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteTag(ctx, loaded, input.tag_name, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })
}
