import type { FastifyReply, FastifyRequest } from 'fastify'
import { ParamError, RouteNotFound } from '../../core/errors.js'
import { offsetWindow, setColumnKeysetHeaders, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRequest, ApiRouter } from '../../http/route.js'
import { findProject, type LoadedProject } from '../access/index.js'
import { CommitJson, presentCommit } from '../commits/index.js'
import { base64JsonStream, blobContentType, blobDisposition, destroyOnClose } from '../repositories/index.js'
import { ARCHIVE_FORMATS, openArchive } from './archive.js'
import { readBlob } from './blobs.js'
import { listContributors } from './contributors.js'
import { listLanguages } from './languages.js'
import { findMergeBase } from './merge-base.js'
import { presentBlob, presentContributor, presentTreeObject } from './present.js'
import { openRepository } from './repository.js'
import {
  ArchiveParams,
  BlobJson,
  BlobParams,
  ContributorListResponse,
  LanguagesJson,
  LanguagesParams,
  ListContributorsParams,
  ListTreeParams,
  MergeBaseParams,
  TreeListResponse,
} from './schemas.js'
import { listTree, openTree, treeKeysetPage, treeOffsetPage } from './tree.js'

/** GL API::Helpers::HeadersHelpers#no_cache_headers (Gitlab::NoCacheHeaders). */
const NO_CACHE_HEADERS = {
  'cache-control': 'max-age=0, private, must-revalidate, no-store, no-cache',
  expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
}

const projectsOfRequests = new WeakMap<FastifyRequest, LoadedProject>()

/**
 * GL Repositories' `before { authorize_read_code! }`: the project is found and its code checked before the params,
 * so an unknown project answers 404 and unreadable code 403 whatever the params say.
 */
async function authorizeReadCode(request: FastifyRequest, raw: Record<string, unknown>) {
  const loaded = await findProject(request.ctx, String(raw.id))
  openRepository(request.ctx, loaded)
  projectsOfRequests.set(request, loaded)
}

function projectOf(request: FastifyRequest): LoadedProject {
  const loaded = projectsOfRequests.get(request)
  if (!loaded) throw new Error('the project was not loaded')
  return loaded
}

const browse = { authenticated: false, before: authorizeReadCode } as const

export function registerRepositoryBrowseRoutes(api: ApiRouter) {
  api.get(
    '/projects/:id/repository/tree',
    { ...browse, params: ListTreeParams, response: { 200: TreeListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      if (input.pagination === 'none' && !input.recursive) throw new ParamError('pagination cannot be "none" unless "recursive" is true')
      const query = { ref: input.ref, path: input.path, recursive: input.recursive }
      if (input.pagination === 'none') return (await listTree(ctx, projectOf(request), query)).map(presentTreeObject)
      const listing = await openTree(ctx, projectOf(request), query)
      const { page, perPage } = offsetWindow(input, ctx.settings)
      if (input.pagination === 'keyset') {
        const keyset = await treeKeysetPage(listing, input.page_token, perPage)
        if (keyset.nextToken) setColumnKeysetHeaders(request, reply, ctx.config.externalUrl, { page_token: keyset.nextToken })
        return keyset.items.map(presentTreeObject)
      }
      const { rows, hasNext, total } = await treeOffsetPage(listing, page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, { rows, page, perPage, total, hasNext })
      return rows.map(presentTreeObject)
    },
  )

  api.get('/projects/:id/repository/blobs/:sha/raw', { ...browse, params: BlobParams }, async (request, reply) => {
    const { ctx, input } = request
    const { blob, open } = await readBlob(ctx, projectOf(request), input.sha)
    const contentType = blobContentType('large' in blob ? blob.head : blob.content)
    reply.headers(NO_CACHE_HEADERS).header('content-type', contentType).header('content-disposition', blobDisposition(contentType))
    if (!('large' in blob)) return reply.send(blob.content)
    const body = await open()
    destroyOnClose(body, reply.raw)
    return reply.header('content-length', String(blob.size)).send(body)
  })

  api.get('/projects/:id/repository/blobs/:sha', { ...browse, params: BlobParams, response: { 200: BlobJson } }, async (request, reply) => {
    const { ctx, input } = request
    const { blob, open } = await readBlob(ctx, projectOf(request), input.sha)
    if (!('large' in blob)) return presentBlob(blob)
    // GL loads a large blob whole into the same JSON; it is written here as git streams it.
    const { body, length } = base64JsonStream(presentBlob({ ...blob, content: Buffer.alloc(0) }), 'content', await open(), blob.size)
    destroyOnClose(body, reply.raw)
    return reply.type('application/json').header('content-length', String(length)).send(body)
  })

  const archive = { ...browse, params: ArchiveParams }
  const sendArchive = async (request: ApiRequest<typeof ArchiveParams>, reply: FastifyReply) => {
    const { ctx, input } = request
    const opened = await openArchive(ctx, projectOf(request), {
      sha: input.sha,
      format: input.format,
      path: input.path,
      excludePaths: input.exclude_paths,
    })
    // Workhorse's setArchiveHeaders.
    reply
      .header('content-disposition', `attachment; filename="${opened.fileName.replace(/["\\]/g, '\\$&')}"`)
      .header('content-type', opened.contentType)
      .header('content-transfer-encoding', 'binary')
    destroyOnClose(opened.body, reply.raw)
    return reply.send(opened.body)
  }
  api.get('/projects/:id/repository/archive', archive, sendArchive)
  api.get(
    '/projects/:id/repository/archive.:format',
    {
      ...archive,
      // GL `requirements: { format: archive_formats_regex }`: another extension is no route at all.
      before: async (request, raw) => {
        if (!(ARCHIVE_FORMATS as readonly string[]).includes(String(raw.format))) throw new RouteNotFound()
        await authorizeReadCode(request, raw)
      },
    },
    sendArchive,
  )

  api.get(
    '/projects/:id/repository/contributors',
    { ...browse, params: ListContributorsParams, response: { 200: ContributorListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const contributors = await listContributors(ctx, projectOf(request), { ref: input.ref, orderBy: input.order_by, sort: input.sort })
      const start = (page - 1) * perPage
      const rows = contributors.slice(start, start + perPage)
      const hasNext = start + perPage < contributors.length
      setOffsetHeaders(request, reply, ctx.config.externalUrl, { rows, page, perPage, total: contributors.length, hasNext })
      return rows.map(presentContributor)
    },
  )

  api.get('/projects/:id/repository/merge_base', { ...browse, params: MergeBaseParams, response: { 200: CommitJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = projectOf(request)
    const commit = await findMergeBase(ctx, loaded, input.refs)
    return presentCommit(commit, { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path })
  })

  api.get(
    '/projects/:id/languages',
    { authenticated: false, params: LanguagesParams, response: { 200: LanguagesJson } },
    async (request) => {
      const { ctx, input } = request
      return listLanguages(ctx, await findProject(ctx, input.id))
    },
  )
}
