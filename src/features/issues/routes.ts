import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { ParamError, Unauthorized } from '../../core/errors.js'
import { keysetWindow, offsetWindow, setKeysetHeaders, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { issuableFiltersOf } from '../issuables/index.js'
import { MilestoneIssuablesParams, showMilestone } from '../milestones/index.js'
import { spamRequestOf } from '../spam/index.js'
import { presentIssue, presentIssueBasic } from './present.js'
import {
  CreateIssueParams,
  IssueBasicListResponse,
  IssueJson,
  IssueListResponse,
  IssueParams,
  ListIssuesParams,
  UPDATE_ISSUE_ANY_OF,
  UpdateIssueParams,
  type IssueOrder,
  type ListIssuesParams as ListInput,
  type UpdateIssueParams as UpdateInput,
} from './schemas.js'
import {
  createIssue,
  deleteIssue,
  issueViewsOf,
  listGroupIssues,
  listIssues,
  listProjectIssues,
  showIssue,
  subscribeToIssue,
  updateIssue,
  type IssueInput,
  type IssuePage,
  type ListIssuesInput,
  type ListOrigin,
} from './service.js'
import { findGroup, findIssue, findProject } from '../access/index.js'

function listInputOf(ctx: Context, input: ListInput, keysetType: string | null): ListIssuesInput {
  return {
    filters: {
      ...issuableFiltersOf(input),
      confidential: input.confidential,
      issueType: input.issue_type,
    },
    orderBy: input.order_by as IssueOrder,
    sort: input.sort,
    pagination:
      input.pagination === 'keyset'
        ? { kind: 'keyset', ...keysetWindow(input) }
        : { kind: 'offset', ...offsetWindow(input, ctx.settings, keysetType) },
  }
}

async function sendList(
  request: FastifyRequest,
  reply: FastifyReply,
  list: IssuePage,
  withLabelsDetails: boolean,
  origin: ListOrigin,
  present: typeof presentIssue | typeof presentIssueBasic = presentIssue,
) {
  const { ctx } = request
  if (list.kind === 'keyset') setKeysetHeaders(request, reply, ctx.config.externalUrl, list.page)
  else setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page)
  const views = await issueViewsOf(ctx, list.page.rows)
  const options = { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now(), withLabelsDetails, origin }
  return views.map((view) => present(view, options))
}

function presentOne(ctx: Context) {
  return {
    viewer: ctx.caller,
    externalUrl: ctx.config.externalUrl,
    now: ctx.now(),
    withLabelsDetails: false,
    origin: { kind: 'project' as const },
  }
}

function issueInputOf(input: Partial<UpdateInput>): IssueInput {
  // The deprecated `assignee_id` stands for a one-element `assignee_ids` (GL convert_parameters_from_legacy_format).
  const assigneeIds = input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : undefined)
  return {
    title: input.title,
    description: input.description,
    labels: input.labels,
    addLabels: input.add_labels,
    removeLabels: input.remove_labels,
    assigneeIds,
    milestoneId: input.milestone_id,
    confidential: input.confidential,
    discussionLocked: input.discussion_locked,
    dueDate: input.due_date,
    issueType: input.issue_type,
    createdAt: input.created_at,
    updatedAt: input.updated_at,
    stateEvent: input.state_event,
  }
}

export function registerIssueRoutes(api: ApiRouter) {
  const list = { params: ListIssuesParams, response: { 200: IssueListResponse }, authenticated: false }

  api.get('/issues', list, async (request, reply) => {
    const { ctx, input } = request
    // GL issues.rb: `authenticate! unless params[:scope] == 'all'`.
    if (input.scope !== 'all' && !ctx.caller.user) throw new Unauthorized()
    const page = await listIssues(ctx, listInputOf(ctx, input, null))
    return sendList(request, reply, page, input.with_labels_details, { kind: 'none' })
  })

  api.get('/groups/:id/issues', list, async (request, reply) => {
    const { ctx, input } = request
    const listInput = listInputOf(ctx, input, null)
    const { group } = await findGroup(ctx, input.id!)
    const page = await listGroupIssues(ctx, group, listInput)
    return sendList(request, reply, page, input.with_labels_details, { kind: 'group', group })
  })

  api.get('/projects/:id/issues', list, async (request, reply) => {
    const { ctx, input } = request
    const listInput = listInputOf(ctx, input, input.pagination === 'keyset' ? null : 'Issue')
    const loaded = await findProject(ctx, input.id!)
    const page = await listProjectIssues(ctx, loaded, listInput)
    return sendList(request, reply, page, input.with_labels_details, { kind: 'project' })
  })

  // GL milestone_responses.rb `milestone_issuables_for`: the milestone's issues the caller may see, as IssueBasic.
  api.get(
    '/projects/:id/milestones/:milestone_id/issues',
    { params: MilestoneIssuablesParams, response: { 200: IssueBasicListResponse }, authenticated: false },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const milestone = await showMilestone(ctx, loaded, input.milestone_id)
      const page = await listProjectIssues(ctx, loaded, {
        filters: { milestoneId: milestone.id },
        orderBy: 'label_priority',
        sort: 'asc',
        pagination: { kind: 'offset', ...offsetWindow(input, ctx.settings) },
      })
      return sendList(request, reply, page, false, { kind: 'project' }, presentIssueBasic)
    },
  )

  api.get(
    '/projects/:id/issues/:issue_iid',
    { params: IssueParams, response: { 200: IssueJson }, authenticated: false },
    async (request) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const issue = await findIssue(ctx, loaded, input.issue_iid)
      return presentIssue(await showIssue(ctx, loaded, issue), presentOne(ctx))
    },
  )

  for (const action of ['subscribe', 'unsubscribe'] as const) {
    api.post(`/projects/:id/issues/:issue_iid/${action}`, { params: IssueParams, response: { 201: IssueJson } }, async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      const view = await subscribeToIssue(ctx, await findIssue(ctx, loaded, input.issue_iid), action === 'subscribe')
      // Already as asked: GitLab's not_modified!, 304 with no body.
      if (!view) return reply.code(304).send()
      return reply.code(201).send(presentIssue(view, presentOne(ctx)))
    })
  }

  api.post('/projects/:id/issues', { params: CreateIssueParams, response: { 201: IssueJson } }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    const view = await createIssue(ctx, loaded, { ...issueInputOf(input), title: input.title }, spamRequestOf(request.headers, request.ip))
    return reply.code(201).send(presentIssue(view, presentOne(ctx)))
  })

  api.put('/projects/:id/issues/:issue_iid', { params: UpdateIssueParams, response: { 200: IssueJson } }, async (request) => {
    const { ctx, input } = request
    if (UPDATE_ISSUE_ANY_OF.every((name) => input[name] === undefined)) {
      throw new ParamError(`${UPDATE_ISSUE_ANY_OF.join(', ')} are missing, at least one parameter must be provided`)
    }
    const loaded = await findProject(ctx, input.id)
    const view = await updateIssue(ctx, loaded, input.issue_iid, issueInputOf(input), spamRequestOf(request.headers, request.ip))
    return presentIssue(view, presentOne(ctx))
  })

  api.delete('/projects/:id/issues/:issue_iid', { params: IssueParams }, async (request, reply) => {
    const { ctx, input } = request
    const loaded = await findProject(ctx, input.id)
    await deleteIssue(ctx, loaded, input.issue_iid)
    return reply.code(204).send()
  })
}
