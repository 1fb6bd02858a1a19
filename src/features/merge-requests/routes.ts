import { Type } from '@sinclair/typebox'
import type { Context } from '../../core/context.js'
import { ParamError, Unauthorized } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { pageOfArray } from '../commits/index.js'
import { issuableFiltersOf } from '../issuables/index.js'
import { presentUserBasic } from '../users/index.js'
import { findReviewersOf } from './reviewers.js'
import { MilestoneIssuablesParams, showMilestone } from '../milestones/index.js'
import { mergeMergeRequest } from './merging.js'
import { presentMergeRequest, presentMergeRequestBasic, type MergeRequestPresentOptions } from './present.js'
import { registerMergeRequestReviewRoutes } from './review-routes.js'
import { registerMergeRequestDiscussionRoutes } from './discussion-routes.js'
import { closingIssuesOf } from './closing-issues.js'
import { isRebaseInProgress, requestRebase } from './rebase.js'
import { IssueBasicJson, issueViewsOf, presentIssueBasic } from '../issues/index.js'
import {
  CreateMergeRequestParams,
  ListMergeRequestsParams,
  MergeMergeRequestParams,
  MergeRequestJson,
  MergeRequestListResponse,
  MergeRequestIidParams,
  MergeRequestPageParams,
  MergeRequestParams,
  MergeRequestReviewerJson,
  RebaseMergeRequestParams,
  ShowMergeRequestParams,
  UPDATE_MERGE_REQUEST_ANY_OF,
  UpdateMergeRequestParams,
  type ListMergeRequestsParams as ListInput,
  type MergeRequestOrder,
  type UpdateMergeRequestParams as UpdateInput,
} from './schemas.js'
import {
  createMergeRequest,
  deleteMergeRequest,
  listGroupMergeRequests,
  listMergeRequests,
  listProjectMergeRequests,
  mergeRequestViewsOf,
  showMergeRequest,
  subscribeToMergeRequest,
  updateMergeRequest,
  type ListMergeRequestsInput,
  type MergeRequestInput,
  renderMergeRequestHtml,
} from './service.js'
import { findGroup, findMergeRequest, findProject } from '../access/index.js'

function listInputOf(ctx: Context, input: ListInput): ListMergeRequestsInput {
  const { page, perPage } = offsetWindow(input, ctx.settings)
  if (input.reviewer_id !== undefined && input.reviewer_username !== undefined) {
    throw new ParamError('reviewer_id, reviewer_username are mutually exclusive')
  }
  return {
    filters: {
      ...issuableFiltersOf(input),
      reviewerId: input.reviewer_id,
      reviewerUsername: input.reviewer_username,
      sourceBranch: input.source_branch,
      targetBranch: input.target_branch,
    },
    orderBy: input.order_by as MergeRequestOrder,
    sort: input.sort,
    page,
    perPage,
  }
}

function optionsOf(ctx: Context, origin: MergeRequestPresentOptions['origin'], withLabelsDetails = false): MergeRequestPresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now(), withLabelsDetails, origin }
}

function mergeRequestInputOf(input: Partial<UpdateInput> & { source_branch?: string; target_project_id?: number }): MergeRequestInput {
  return {
    title: input.title,
    description: input.description,
    sourceBranch: input.source_branch,
    targetBranch: input.target_branch,
    targetProjectId: input.target_project_id,
    labels: input.labels,
    addLabels: input.add_labels,
    removeLabels: input.remove_labels,
    // The deprecated `assignee_id` stands for a one-element `assignee_ids`.
    assigneeIds: input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : undefined),
    milestoneId: input.milestone_id,
    reviewerIds: input.reviewer_ids,
    removeSourceBranch: input.remove_source_branch,
    squash: input.squash,
    discussionLocked: input.discussion_locked,
    stateEvent: input.state_event,
  }
}

export function registerMergeRequestRoutes(api: ApiRouter) {
  registerMergeRequestReviewRoutes(api)
  registerMergeRequestDiscussionRoutes(api)
  const list = { params: ListMergeRequestsParams, response: { 200: MergeRequestListResponse }, authenticated: false }

  api.get('/merge_requests', list, async (request, reply) => {
    const { ctx, input } = request
    // GL merge_requests.rb: `authenticate! unless params[:scope] == 'all'`.
    if (input.scope !== 'all' && !ctx.caller.user) throw new Unauthorized()
    const page = await listMergeRequests(ctx, listInputOf(ctx, input))
    setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
    const options = optionsOf(ctx, { kind: 'none' }, input.with_labels_details)
    return (await mergeRequestViewsOf(ctx, page.rows)).map((view) => presentMergeRequestBasic(view, options))
  })

  api.get('/groups/:id/merge_requests', list, async (request, reply) => {
    const { ctx, input } = request
    const listInput = listInputOf(ctx, input)
    const { group } = await findGroup(ctx, input.id!)
    const page = await listGroupMergeRequests(ctx, group, listInput)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
    const options = optionsOf(ctx, { kind: 'group', group }, input.with_labels_details)
    return (await mergeRequestViewsOf(ctx, page.rows)).map((view) => presentMergeRequestBasic(view, options))
  })

  api.get('/projects/:id/merge_requests', list, async (request, reply) => {
    const { ctx, input } = request
    const listInput = listInputOf(ctx, input)
    const loaded = await findProject(ctx, input.id!)
    const page = await listProjectMergeRequests(ctx, loaded, listInput)
    setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
    const options = optionsOf(ctx, { kind: 'project' }, input.with_labels_details)
    return (await mergeRequestViewsOf(ctx, page.rows)).map((view) => presentMergeRequestBasic(view, options))
  })

  // GL milestone_responses.rb `milestone_issuables_for`: the milestone's merge requests the caller may see.
  api.get(
    '/projects/:id/milestones/:milestone_id/merge_requests',
    { params: MilestoneIssuablesParams, response: { 200: MergeRequestListResponse }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const milestone = await showMilestone(ctx, loaded, input.milestone_id)
      const window = offsetWindow(input, ctx.settings)
      const page = await listProjectMergeRequests(ctx, loaded, {
        filters: { milestoneId: milestone.id },
        orderBy: 'label_priority',
        sort: 'asc',
        page: window.page,
        perPage: window.perPage,
      })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      const options = optionsOf(ctx, { kind: 'project' }, false)
      return (await mergeRequestViewsOf(ctx, page.rows)).map((view) => presentMergeRequestBasic(view, options))
    },
  )

  const one = '/projects/:id/merge_requests/:merge_request_iid'

  api.get(one, { params: ShowMergeRequestParams, response: { 200: MergeRequestJson }, authenticated: false }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const row = await findMergeRequest(ctx, loaded, input.merge_request_iid)
    const json = presentMergeRequest(await showMergeRequest(ctx, loaded, row), optionsOf(ctx, { kind: 'project' }))
    const rebase = input.include_rebase_in_progress ? { rebase_in_progress: await isRebaseInProgress(ctx.db, row) } : {}
    if (!input.render_html) return { ...json, ...rebase }
    return { ...json, ...(await renderMergeRequestHtml(ctx, loaded, row)), ...rebase }
  })

  for (const action of ['subscribe', 'unsubscribe'] as const) {
    api.post(`${one}/${action}`, { params: MergeRequestIidParams, response: { 201: MergeRequestJson } }, async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const row = await findMergeRequest(ctx, loaded, input.merge_request_iid)
      const view = await subscribeToMergeRequest(ctx, loaded, row, action === 'subscribe')
      // Already as asked: GitLab's not_modified!, 304 with no body.
      if (!view) return reply.code(304).send()
      return reply.code(201).send(presentMergeRequest(view, optionsOf(ctx, { kind: 'project' })))
    })
  }

  api.get(
    `${one}/reviewers`,
    { params: MergeRequestPageParams, response: { 200: Type.Array(MergeRequestReviewerJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const row = await findMergeRequest(ctx, loaded, input.merge_request_iid)
      const shown = pageOfArray((await findReviewersOf(ctx.db, [row.id])).get(row.id) ?? [], page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      const options = optionsOf(ctx, { kind: 'project' })
      return shown.rows.map((reviewer) => ({
        user: presentUserBasic(reviewer.user, options),
        state: reviewer.state,
        created_at: reviewer.createdAt,
      }))
    },
  )

  // GL merge_requests.rb `closes_issues`: the issues merging it would close, as the caller may read them.
  api.get(
    `${one}/closes_issues`,
    { params: MergeRequestPageParams, response: { 200: Type.Array(IssueBasicJson) }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const loaded = await findProject(ctx, input.id)
      const row = await findMergeRequest(ctx, loaded, input.merge_request_iid)
      const shown = pageOfArray(await closingIssuesOf(ctx, loaded, row), page, perPage)
      setOffsetHeaders(request, reply, ctx.config.externalUrl, shown)
      const views = await issueViewsOf(
        ctx,
        shown.rows.map((closing) => closing.issue),
      )
      const options = {
        viewer: ctx.caller,
        externalUrl: ctx.config.externalUrl,
        now: ctx.now(),
        withLabelsDetails: false,
        origin: { kind: 'project' as const },
      }
      return views.map((view) => presentIssueBasic(view, options))
    },
  )

  api.post(
    '/projects/:id/merge_requests',
    { params: CreateMergeRequestParams, response: { 201: MergeRequestJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const view = await createMergeRequest(ctx, loaded, {
        ...mergeRequestInputOf(input),
        title: input.title,
        sourceBranch: input.source_branch,
        targetBranch: input.target_branch,
      })
      return reply.code(201).send(presentMergeRequest(view, optionsOf(ctx, { kind: 'project' })))
    },
  )

  api.put(one, { params: UpdateMergeRequestParams, response: { 200: MergeRequestJson } }, async (request) => {
    const { ctx, input } = request
    const given = input as Record<string, unknown>
    if (UPDATE_MERGE_REQUEST_ANY_OF.every((name) => given[name] === undefined)) {
      throw new ParamError(`${UPDATE_MERGE_REQUEST_ANY_OF.join(', ')} are missing, at least one parameter must be provided`)
    }
    const loaded = await findProject(ctx, input.id)
    const view = await updateMergeRequest(ctx, loaded, input.merge_request_iid, mergeRequestInputOf(input))
    return presentMergeRequest(view, optionsOf(ctx, { kind: 'project' }))
  })

  api.put(`${one}/merge`, { params: MergeMergeRequestParams, response: { 200: MergeRequestJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const view = await mergeMergeRequest(ctx, loaded, input.merge_request_iid, {
      mergeCommitMessage: input.merge_commit_message,
      squashCommitMessage: input.squash_commit_message,
      shouldRemoveSourceBranch: input.should_remove_source_branch,
      autoMerge: input.auto_merge === true || input.merge_when_pipeline_succeeds === true,
      sha: input.sha,
      squash: input.squash,
    })
    return presentMergeRequest(view, optionsOf(ctx, { kind: 'project' }))
  })

  // GL merge_requests.rb `rebase`: 202 once the rebase is queued; the merge request says when it is done.
  api.put(
    `${one}/rebase`,
    { params: RebaseMergeRequestParams, response: { 202: Type.Object({ rebase_in_progress: Type.Boolean() }) } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const row = await findMergeRequest(ctx, loaded, input.merge_request_iid)
      const queued = await requestRebase(ctx, loaded, row, { skipCi: input.skip_ci === true })
      return reply.code(202).send({ rebase_in_progress: await isRebaseInProgress(ctx.db, queued) })
    },
  )

  api.delete(one, { params: MergeRequestParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const row = await findMergeRequest(ctx, loaded, input.merge_request_iid)
    await deleteMergeRequest(ctx, loaded, row)
    return reply.code(204).send()
  })
}
