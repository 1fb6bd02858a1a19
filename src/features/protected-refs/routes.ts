import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject } from '../access/index.js'
import { presentProtectedBranch, presentProtectedTag } from './present.js'
import {
  CreateProtectedBranchParams,
  CreateProtectedTagParams,
  ListProtectedRefsParams,
  ProtectedBranchJson,
  ProtectedBranchListResponse,
  ProtectedRefParams,
  ProtectedTagJson,
  ProtectedTagListResponse,
  UpdateProtectedBranchParams,
} from './schemas.js'
import {
  listProtectedBranches,
  listProtectedTags,
  protectBranch,
  protectTag,
  showProtectedBranch,
  showProtectedTag,
  unprotectBranch,
  unprotectTag,
  updateProtectedBranch,
} from './service.js'

export function registerProtectedRefRoutes(api: ApiRouter) {
  // ----- GL lib/api/protected_branches.rb -----

  api.get(
    '/projects/:id/protected_branches',
    { params: ListProtectedRefsParams, response: { 200: ProtectedBranchListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const window = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const all = await listProtectedBranches(ctx, loaded, input.search)
      const offset = (window.page - 1) * window.perPage
      const rows = all.slice(offset, offset + window.perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, {
        ...window,
        rows,
        total: all.length,
        hasNext: offset + rows.length < all.length,
      })
      return rows.map(presentProtectedBranch)
    },
  )

  api.get(
    '/projects/:id/protected_branches/:name',
    { params: ProtectedRefParams, response: { 200: ProtectedBranchJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return presentProtectedBranch(await showProtectedBranch(ctx, loaded, input.name))
    },
  )

  api.post(
    '/projects/:id/protected_branches',
    { params: CreateProtectedBranchParams, response: { 201: ProtectedBranchJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return reply.code(201).send(presentProtectedBranch(await protectBranch(ctx, loaded, input)))
    },
  )

  api.patch(
    '/projects/:id/protected_branches/:name',
    { params: UpdateProtectedBranchParams, response: { 200: ProtectedBranchJson } },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return presentProtectedBranch(await updateProtectedBranch(ctx, loaded, input))
    },
  )

  api.delete('/projects/:id/protected_branches/:name', { params: ProtectedRefParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await unprotectBranch(ctx, loaded, input.name)
    return reply.code(204).send()
  })

  // ----- GL lib/api/protected_tags.rb -----

  api.get(
    '/projects/:id/protected_tags',
    { params: ListProtectedRefsParams, response: { 200: ProtectedTagListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const window = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const all = await listProtectedTags(ctx, loaded)
      const offset = (window.page - 1) * window.perPage
      const rows = all.slice(offset, offset + window.perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, {
        ...window,
        rows,
        total: all.length,
        hasNext: offset + rows.length < all.length,
      })
      return rows.map(presentProtectedTag)
    },
  )

  api.get('/projects/:id/protected_tags/:name', { params: ProtectedRefParams, response: { 200: ProtectedTagJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    return presentProtectedTag(await showProtectedTag(ctx, loaded, input.name))
  })

  api.post(
    '/projects/:id/protected_tags',
    { params: CreateProtectedTagParams, response: { 201: ProtectedTagJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return reply.code(201).send(presentProtectedTag(await protectTag(ctx, loaded, input)))
    },
  )

  api.delete('/projects/:id/protected_tags/:name', { params: ProtectedRefParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await unprotectTag(ctx, loaded, input.name)
    return reply.code(204).send()
  })
}
