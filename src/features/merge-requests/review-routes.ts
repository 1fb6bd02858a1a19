import { Type } from '@sinclair/typebox'
import type { Context } from '../../core/context.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { CommitJson, pageOfArray, presentCommit, presentDiff, DiffJson } from '../commits/index.js'
import { findMergeRequest, findProject, type LoadedProject } from '../access/index.js'
import { destroyOnClose } from '../repositories/index.js'
import { approveMergeRequest, resetApprovals, showApprovalState, unapproveMergeRequest } from './approvals.js'
import {
  presentMergeRequest,
  presentMergeRequestApprovals,
  presentMergeRequestBasic,
  presentMergeRequestVersion,
  type MergeRequestPresentOptions,
} from './present.js'
import {
  listCommitMergeRequests,
  listMergeRequestCommits,
  listMergeRequestDiffs,
  listMergeRequestVersions,
  readMergeRequestRawDiff,
  showMergeRequestChanges,
  showMergeRequestVersion,
} from './review.js'
import {
  ApproveMergeRequestParams,
  CommitMergeRequestsParams,
  MergeRequestChangesJson,
  MergeRequestChangesParams,
  MergeRequestDiffFullJson,
  MergeRequestDiffJson,
  MergeRequestDiffsParams,
  MergeRequestApprovalsJson,
  MergeRequestIidParams,
  MergeRequestListResponse,
  MergeRequestPageParams,
  MergeRequestVersionParams,
} from './schemas.js'
import { mergeRequestViewsOf } from './service.js'

function mergeRequestOptions(ctx: Context): MergeRequestPresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now(), withLabelsDetails: false, origin: { kind: 'project' } }
}

function commitOptions(ctx: Context, loaded: LoadedProject) {
  return { externalUrl: ctx.config.externalUrl, projectFullPath: loaded.project.full_path }
}

async function findTarget(ctx: Context, input: { id: string; merge_request_iid: number }) {
  const loaded = await findProject(ctx, input.id)
  return { loaded, row: await findMergeRequest(ctx, loaded, input.merge_request_iid) }
}

/** Merge request review data: changes, diffs, raw diffs, commits and versions (GL merge_requests.rb, merge_request_diffs.rb). */
export function registerMergeRequestReviewRoutes(api: ApiRouter) {
  const one = '/projects/:id/merge_requests/:merge_request_iid'

  // GL merge_request_approvals.rb (Free): optional approvals, answered 201 on approve and unapprove as Grape's POST.
  api.get(
    `${one}/approvals`,
    { params: MergeRequestIidParams, response: { 200: MergeRequestApprovalsJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const { loaded, row } = await findTarget(ctx, input)
      return presentMergeRequestApprovals(await showApprovalState(ctx, loaded, row), mergeRequestOptions(ctx))
    },
  )

  api.post(
    `${one}/approve`,
    { params: ApproveMergeRequestParams, response: { 201: MergeRequestApprovalsJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const { loaded, row } = await findTarget(ctx, input)
      const state = await approveMergeRequest(ctx, loaded, row, { sha: input.sha })
      return reply.code(201).send(presentMergeRequestApprovals(state, mergeRequestOptions(ctx)))
    },
  )

  api.post(`${one}/unapprove`, { params: MergeRequestIidParams, response: { 201: MergeRequestApprovalsJson } }, async (request, reply) => {
    const { ctx, input } = request
    const { loaded, row } = await findTarget(ctx, input)
    const state = await unapproveMergeRequest(ctx, loaded, row)
    return reply.code(201).send(presentMergeRequestApprovals(state, mergeRequestOptions(ctx)))
  })

  // Grape answers the value of `status :accepted` itself: the body is `202`.
  api.put(`${one}/reset_approvals`, { params: MergeRequestIidParams }, async (request, reply) => {
    const { ctx, input } = request
    const { loaded, row } = await findTarget(ctx, input)
    await resetApprovals(ctx, loaded, row)
    return reply.code(202).type('application/json').send('202')
  })

  api.get(
    `${one}/changes`,
    { params: MergeRequestChangesParams, response: { 200: MergeRequestChangesJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const { loaded, row } = await findTarget(ctx, input)
      const { view, diff, overflow } = await showMergeRequestChanges(ctx, loaded, row, { rawDiffs: input.access_raw_diffs })
      return {
        ...presentMergeRequest(view, mergeRequestOptions(ctx)),
        changes: diff.files.map((file) => presentDiff(file, input.unidiff)),
        overflow,
      }
    },
  )

  api.get(
    `${one}/diffs`,
    { params: MergeRequestDiffsParams, response: { 200: Type.Array(DiffJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const { loaded, row } = await findTarget(ctx, input)
      const shown = pageOfArray((await listMergeRequestDiffs(ctx, loaded, row)).files, page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      return shown.rows.map((file) => presentDiff(file, input.unidiff))
    },
  )

  api.get(`${one}/raw_diffs`, { params: MergeRequestPageParams, authenticated: false }, async (request, reply) => {
    const { ctx, input } = request
    const { loaded, row } = await findTarget(ctx, input)
    const patch = await readMergeRequestRawDiff(ctx, loaded, row)
    // GL `no_cache_headers`.
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache').header('expires', 'Fri, 01 Jan 1990 00:00:00 GMT')
    if (!Buffer.isBuffer(patch)) destroyOnClose(patch, reply.raw)
    return reply.type('text/plain; charset=utf-8').send(patch)
  })

  api.get(
    `${one}/commits`,
    { params: MergeRequestPageParams, response: { 200: Type.Array(CommitJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const { loaded, row } = await findTarget(ctx, input)
      const shown = pageOfArray(await listMergeRequestCommits(ctx, loaded, row), page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      const options = commitOptions(ctx, loaded)
      return shown.rows.map((commit) => presentCommit(commit, options))
    },
  )

  api.get(
    `${one}/versions`,
    { params: MergeRequestPageParams, response: { 200: Type.Array(MergeRequestDiffJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const { loaded, row } = await findTarget(ctx, input)
      const shown = pageOfArray(await listMergeRequestVersions(ctx, loaded, row), page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      return shown.rows.map(presentMergeRequestVersion)
    },
  )

  api.get(
    `${one}/versions/:version_id`,
    { params: MergeRequestVersionParams, response: { 200: MergeRequestDiffFullJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const { loaded, row } = await findTarget(ctx, input)
      const { version, commits, diff } = await showMergeRequestVersion(ctx, loaded, row, input.version_id)
      const options = commitOptions(ctx, loaded)
      return {
        ...presentMergeRequestVersion(version),
        commits: commits.map((commit) => presentCommit(commit, options)),
        diffs: diff.files.map((file) => presentDiff(file, input.unidiff)),
      }
    },
  )

  // GL commits.rb `:id/repository/commits/:sha/merge_requests`: the merge requests whose latest version holds the commit,
  // or that merged it.
  api.get(
    '/projects/:id/repository/commits/:sha/merge_requests',
    { params: CommitMergeRequestsParams, response: { 200: MergeRequestListResponse }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const rows = await listCommitMergeRequests(ctx, loaded, input.sha, input.state ?? 'all')
      const shown = pageOfArray(rows, page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      const options = mergeRequestOptions(ctx)
      return (await mergeRequestViewsOf(ctx, shown.rows)).map((view) => presentMergeRequestBasic(view, options))
    },
  )
}
