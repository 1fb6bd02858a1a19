import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { keysetWindow, offsetWindow, setKeysetHeaders, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { presentGroup, presentGroupDetail, type GroupPresentOptions } from './present.js'
import {
  AcceptedJson,
  CreateGroupParams,
  GroupDetailJson,
  GroupIdParams,
  GroupListResponse,
  ListChildGroupsParams,
  ListGroupsParams,
  ShowGroupParams,
  TransferGroupParams,
  UpdateGroupParams,
} from './schemas.js'
import {
  createGroup,
  deleteGroup,
  groupDetailProjects,
  listChildGroups,
  listGroups,
  showGroup,
  transferGroup,
  updateGroup,
  type GroupAttributes,
  type GroupListPage,
  type GroupListPagination,
  type ListGroupsInput,
} from './service.js'
import { findGroup } from '../access/index.js'

function attributesOf(input: CreateGroupParams | UpdateGroupParams): GroupAttributes {
  return {
    name: input.name,
    path: input.path,
    description: input.description,
    visibility: input.visibility,
    shareWithGroupLock: input.share_with_group_lock,
    requireTwoFactorAuthentication: input.require_two_factor_authentication,
    twoFactorGracePeriod: input.two_factor_grace_period,
    projectCreationLevel: input.project_creation_level,
    subgroupCreationLevel: input.subgroup_creation_level,
    // GL groups.rb `translate_params_for_compatibility`: emails_disabled wins over emails_enabled.
    emailsEnabled: input.emails_disabled !== undefined ? !input.emails_disabled : input.emails_enabled,
    mentionsDisabled: input.mentions_disabled,
    lfsEnabled: input.lfs_enabled,
    requestAccessEnabled: input.request_access_enabled,
    defaultBranch: input.default_branch,
    defaultBranchProtection: input.default_branch_protection,
    defaultBranchProtectionDefaults: input.default_branch_protection_defaults,
  }
}

function listInputOf(input: ListGroupsParams, pagination: GroupListPagination): ListGroupsInput {
  return {
    statistics: input.statistics,
    archived: input.archived,
    skipGroups: input.skip_groups,
    allAvailable: input.all_available,
    visibility: input.visibility,
    search: input.search,
    owned: input.owned,
    orderBy: input.order_by,
    sort: input.sort,
    minAccessLevel: input.min_access_level,
    topLevelOnly: input.top_level_only,
    active: input.active,
    withCustomAttributes: input.with_custom_attributes,
    pagination,
  }
}

function presentOptions(ctx: Context, options: { statistics?: boolean; customAttributes?: boolean } = {}): GroupPresentOptions {
  return {
    externalUrl: ctx.config.externalUrl,
    statistics: options.statistics ?? false,
    customAttributes: options.customAttributes ?? false,
    instanceBranchProtection: ctx.settings.default_branch_protection,
  }
}

function sendList(request: FastifyRequest, reply: FastifyReply, list: GroupListPage) {
  const { ctx } = request
  if (list.kind === 'offset') setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page)
  else setKeysetHeaders(request, reply, ctx.config.externalUrl, list.page)
  const options = presentOptions(ctx, list)
  return list.page.rows.map((group) => presentGroup(group, options))
}

export function registerGroupRoutes(api: ApiRouter) {
  api.get('/groups', { params: ListGroupsParams, authenticated: false, response: { 200: GroupListResponse } }, async (request, reply) => {
    const { ctx, input } = request
    // GL groups.rb `present_groups_with_pagination_strategies`: keyset pages and the offset limit apply to anonymous callers only.
    const anonymous = ctx.caller.user === null
    const pagination: GroupListPagination =
      anonymous && input.pagination === 'keyset'
        ? { kind: 'keyset', ...keysetWindow(input) }
        : { kind: 'offset', ...offsetWindow(input, ctx.settings, anonymous ? 'Group' : null) }
    return sendList(request, reply, await listGroups(ctx, listInputOf(input, pagination)))
  })

  for (const [suffix, descendants] of [
    ['subgroups', false],
    ['descendant_groups', true],
  ] as const) {
    api.get(
      `/groups/:id/${suffix}`,
      { params: ListChildGroupsParams, authenticated: false, response: { 200: GroupListResponse } },
      async (request, reply) => {
        const { ctx, input } = request
        const pagination: GroupListPagination = { kind: 'offset', ...offsetWindow(input, ctx.settings) }
        return sendList(request, reply, await listChildGroups(ctx, input.id, listInputOf(input, pagination), descendants))
      },
    )
  }

  api.post('/groups', { params: CreateGroupParams, response: { 201: GroupDetailJson } }, async (request, reply) => {
    const { ctx, input } = request
    const group = await createGroup(ctx, input.parent_id, attributesOf(input))
    return reply.code(201).send(presentGroupDetail(group, presentOptions(ctx), { runnersToken: false }))
  })

  api.get('/groups/:id', { params: ShowGroupParams, authenticated: false, response: { 200: GroupDetailJson } }, async (request) => {
    const { ctx, input } = request
    const shown = await showGroup(ctx, input.id, { withProjects: input.with_projects, withCustomAttributes: input.with_custom_attributes })
    return presentGroupDetail(shown.group, presentOptions(ctx, shown), { runnersToken: shown.runnersToken, ...shown.projects })
  })

  api.put('/groups/:id', { params: UpdateGroupParams, response: { 200: GroupDetailJson } }, async (request) => {
    const { ctx, input } = request
    const loaded = await findGroup(ctx, input.id)
    const group = await updateGroup(ctx, loaded, attributesOf(input))
    return presentGroupDetail(group, presentOptions(ctx), { runnersToken: true, ...(await groupDetailProjects(ctx, group)) })
  })

  api.post('/groups/:id/transfer', { params: TransferGroupParams, response: { 201: GroupDetailJson } }, async (request, reply) => {
    const { ctx, input } = request
    const group = await transferGroup(ctx, await findGroup(ctx, input.id), input.group_id)
    return reply.code(201).send(presentGroupDetail(group, presentOptions(ctx), { runnersToken: false }))
  })

  api.delete('/groups/:id', { params: GroupIdParams, response: { 202: AcceptedJson } }, async (request, reply) => {
    const { ctx, input } = request
    await deleteGroup(ctx, await findGroup(ctx, input.id))
    return reply.code(202).send({ message: '202 Accepted' })
  })
}
