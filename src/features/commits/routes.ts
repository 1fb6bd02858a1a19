import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { offsetWindow, paginationParams, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { findProject, type LoadedProject } from '../access/index.js'
import { compareRefs } from './compare.js'
import { presentCommit, presentCommitDetail, presentDiff } from './present.js'
import {
  CommitDetailJson,
  CommitDiffParams,
  CommitListResponse,
  CommitPageParams,
  CommitRefJson,
  CommitRefsParams,
  CompareJson,
  CompareParams,
  DiffJson,
  ListCommitsParams,
  ShowCommitParams,
} from './schemas.js'
import { commitDiffOf, commitRefsOf, commitStatsOf, findProjectCommit, listCommits, pageOfArray } from './service.js'

function commitOptions(ctx: Context, loaded: LoadedProject, withTrailers = false) {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path, withTrailers }
}

/**
 * GL commits.rb pages its list with `total_count: offset + commits.size + 1` and `exclude_total_headers`: a next page
 * whenever this one is full, a `last` link from that guess, and no X-Total or X-Total-Pages.
 */
function setCommitListHeaders(request: FastifyRequest, reply: FastifyReply, ctx: Context, page: number, perPage: number, count: number) {
  const offset = (page - 1) * perPage
  setOffsetHeaders(request, reply, ctx.config.externalUrl, {
    rows: new Array<null>(count).fill(null),
    page,
    perPage,
    total: offset + count + 1,
    hasNext: count >= perPage,
  })
  reply.removeHeader('x-total')
  reply.removeHeader('x-total-pages')
}

const StatusesParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  ref: Type.Optional(Type.String()),
  stage: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  pipeline_id: Type.Optional(Type.Integer()),
  all: Type.Optional(Type.Boolean()),
  order_by: Type.Optional(Type.Union([Type.Literal('id'), Type.Literal('pipeline_id')])),
  sort: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  ...paginationParams,
})

export function registerCommitRoutes(api: ApiRouter) {
  // ----- GL lib/api/commits.rb -----

  api.get(
    '/projects/:id/repository/commits',
    { params: ListCommitsParams, response: { 200: CommitListResponse }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const { directory, commits } = await listCommits(ctx, loaded, {
        refName: input.ref_name,
        since: input.since,
        until: input.until,
        path: input.path,
        author: input.author,
        all: input.all,
        firstParent: input.first_parent,
        order: input.order,
        offset: (page - 1) * perPage,
        limit: perPage,
      })
      setCommitListHeaders(request, reply, ctx, page, perPage, commits.length)
      const options = commitOptions(ctx, loaded, input.trailers)
      if (!input.with_stats) return commits.map((commit) => presentCommit(commit, options))
      return Promise.all(
        commits.map(async (commit) => ({ ...presentCommit(commit, options), stats: await commitStatsOf(directory, commit) })),
      )
    },
  )

  api.get(
    '/projects/:id/repository/commits/:sha',
    { params: ShowCommitParams, response: { 200: CommitDetailJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const { directory, commit } = await findProjectCommit(ctx, loaded, input.sha)
      const stats = input.stats ? await commitStatsOf(directory, commit) : null
      return presentCommitDetail(commit, { ...commitOptions(ctx, loaded), projectId: loaded.project.id, stats })
    },
  )

  api.get(
    '/projects/:id/repository/commits/:sha/diff',
    { params: CommitDiffParams, response: { 200: Type.Array(DiffJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const { directory, commit } = await findProjectCommit(ctx, loaded, input.sha)
      const { files } = await commitDiffOf(directory, commit)
      const shown = pageOfArray(files, page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      return shown.rows.map((file) => presentDiff(file, input.unidiff))
    },
  )

  api.get(
    '/projects/:id/repository/commits/:sha/refs',
    { params: CommitRefsParams, response: { 200: Type.Array(CommitRefJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const { directory, commit } = await findProjectCommit(ctx, loaded, input.sha)
      const shown = pageOfArray(await commitRefsOf(directory, commit, input.type), page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      return shown.rows
    },
  )

  // svc keeps no notes on commits: the commit must exist, and it has no comments.
  api.get('/projects/:id/repository/commits/:sha/comments', { params: CommitPageParams, authenticated: false }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const loaded = await findProject(ctx, input.id)
    await findProjectCommit(ctx, loaded, input.sha)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, pageOfArray([], page, perPage))
    return []
  })

  // GL commit_statuses.rb; svc runs no CI, so a commit has no statuses.
  api.get('/projects/:id/repository/commits/:sha/statuses', { params: StatusesParams, authenticated: false }, async (request, reply) => {
    const { ctx, input } = request
    const { page, perPage } = offsetWindow(input, ctx.settings)
    const loaded = await findProject(ctx, input.id)
    await findProjectCommit(ctx, loaded, input.sha)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, pageOfArray([], page, perPage))
    return []
  })

  // ----- GL lib/api/repositories.rb -----

  api.get(
    '/projects/:id/repository/compare',
    { params: CompareParams, response: { 200: CompareJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const comparison = await compareRefs(ctx, loaded, {
        from: input.from,
        to: input.to,
        fromProjectId: input.from_project_id,
        idParam: input.id,
        straight: input.straight,
      })
      const options = commitOptions(ctx, loaded)
      const commits = comparison.commits.map((commit) => presentCommit(commit, options))
      return {
        commit: commits[commits.length - 1] ?? null,
        commits,
        diffs: comparison.diff.files.map((file) => presentDiff(file, input.unidiff)),
        compare_timeout: comparison.diff.overflow,
        compare_same_ref: comparison.same,
        web_url: `${ctx.config.externalUrl}/${loaded.project.full_path}/-/compare/${comparison.startSha}...${comparison.headSha}`,
      }
    },
  )
}
