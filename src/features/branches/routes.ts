import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { ParamError } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject, type LoadedProject } from '../access/index.js'
import { presentBranch, type BranchPresentOptions } from './present.js'
import {
  BranchJson,
  BranchListResponse,
  BranchParams,
  CreateBranchParams,
  ListBranchesParams,
  MessageJson,
  ProjectParams,
  ProtectBranchParams,
} from './schemas.js'
import {
  branchExists,
  createBranch,
  deleteBranch,
  deleteMergedBranches,
  listBranches,
  protectBranch,
  showBranch,
  unprotectBranch,
  type BranchPage,
} from './service.js'

function presentOptions(ctx: Context, loaded: LoadedProject): BranchPresentOptions {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path }
}

/** Grape's `allow_blank: false`. */
function refuseBlank(input: Record<string, unknown>, names: readonly string[]) {
  const blank = names.filter((name) => typeof input[name] === 'string' && (input[name] as string).trim() === '')
  if (blank.length > 0) throw new ParamError(blank.map((name) => `${name} is empty`).join(', '))
}

/**
 * GL GitalyKeysetPager: the first page is read as Gitaly pages it, with headers that imitate offset pagination (a
 * next page 2 whatever follows, X-Total counting every branch, X-Total-Pages `total / per_page + 1`); later pages are
 * Kaminari's offset pages of the whole list; keyset pages (`pagination=keyset`) link the next by `page_token`.
 */
function setBranchListHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: Context,
  result: BranchPage,
  window: { page: number; perPage: number },
  keyset: boolean,
) {
  const externalUrl = ctx.config.externalUrl
  if (keyset && !result.firstPage) {
    if (result.branches.length === window.perPage) {
      const last = result.branches[result.branches.length - 1].name
      const path = (request.raw.url ?? request.url).split('?')[0]
      const query = new URLSearchParams(request.query as Record<string, string>)
      query.set('page_token', last)
      reply.header('link', `<${externalUrl}${path}?${query.toString()}>; rel="next"`)
    }
    return
  }
  if (result.firstPage) {
    const totalPages = Math.floor(result.branchCount / window.perPage) + 1
    setOffsetHeaders(request, reply, externalUrl, {
      rows: result.branches,
      page: 1,
      perPage: window.perPage,
      total: totalPages * window.perPage,
      hasNext: true,
    })
    reply.header('x-total', String(result.branchCount))
    return
  }
  setOffsetHeaders(request, reply, externalUrl, {
    rows: result.branches,
    page: window.page,
    perPage: window.perPage,
    total: result.matchCount,
    hasNext: window.page * window.perPage < result.matchCount,
  })
}

export function registerBranchRoutes(api: ApiRouter) {
  // ----- GL lib/api/branches.rb -----

  api.get(
    '/projects/:id/repository/branches',
    { params: ListBranchesParams, response: { 200: BranchListResponse }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const window = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const keyset = input.pagination === 'keyset'
      const result = await listBranches(ctx, loaded, {
        search: input.search,
        regex: input.regex,
        sort: input.sort,
        pageToken: input.page_token,
        keyset,
        page: window.page,
        perPage: window.perPage,
      })
      setBranchListHeaders(request, reply, ctx, result, window, keyset)
      const options = presentOptions(ctx, loaded)
      return result.branches.map((branch) => presentBranch(branch, options))
    },
  )

  // Fastify answers HEAD with this GET route; GitLab's HEAD says 204 or 404 without reading the branch.
  api.get(
    '/projects/:id/repository/branches/:branch',
    { params: BranchParams, response: { 200: BranchJson }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      if (request.method === 'HEAD') {
        return reply.code((await branchExists(ctx, loaded, input.branch)) ? 204 : 404).send()
      }
      return presentBranch(await showBranch(ctx, loaded, input.branch), presentOptions(ctx, loaded))
    },
  )

  api.put(
    '/projects/:id/repository/branches/:branch/protect',
    { params: ProtectBranchParams, response: { 200: BranchJson } },
    async (request) => {
      const { ctx, input } = request
      refuseBlank(input, ['branch'])
      const loaded = await findProject(ctx, input.id)
      const branch = await protectBranch(ctx, loaded, input.branch, { push: input.developers_can_push, merge: input.developers_can_merge })
      return presentBranch(branch, presentOptions(ctx, loaded))
    },
  )

  api.put(
    '/projects/:id/repository/branches/:branch/unprotect',
    { params: BranchParams, response: { 200: BranchJson } },
    async (request) => {
      const { ctx, input } = request
      refuseBlank(input, ['branch'])
      const loaded = await findProject(ctx, input.id)
      return presentBranch(await unprotectBranch(ctx, loaded, input.branch), presentOptions(ctx, loaded))
    },
  )

  api.post('/projects/:id/repository/branches', { params: CreateBranchParams, response: { 201: BranchJson } }, async (request, reply) => {
    const { ctx, input } = request
    refuseBlank(input, ['branch', 'ref'])
    const loaded = await findProject(ctx, input.id)
    const branch = await createBranch(ctx, loaded, input.branch, input.ref)
    return reply.code(201).send(presentBranch(branch, presentOptions(ctx, loaded)))
  })

  api.delete('/projects/:id/repository/branches/:branch', { params: BranchParams }, async (request, reply) => {
    const { ctx, input } = request
    refuseBlank(input, ['branch'])
    const loaded = await findProject(ctx, input.id)
    await deleteBranch(ctx, loaded, input.branch, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  api.delete(
    '/projects/:id/repository/merged_branches',
    { params: ProjectParams, response: { 202: MessageJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      await deleteMergedBranches(ctx, loaded)
      return reply.code(202).send({ message: '202 Accepted' })
    },
  )
}
