import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TObject } from '@sinclair/typebox'
import type { Context } from '../../core/context.js'
import { RouteNotFound, Unauthorized, Unprocessable } from '../../core/errors.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { unmodifiedSinceOf } from '../../http/params.js'
import { adminOnly, type ApiRouter } from '../../http/route.js'
import { findGroup, findProject } from '../access/index.js'
import { hasGroupHooks } from './policy.js'
import { presentGroupHook, presentHookLog, presentProjectHook, presentSystemHook } from './present.js'
import {
  CreateGroupHookParams,
  CreateProjectHookParams,
  CreateSystemHookParams,
  GROUP_HOOK_SWITCHES,
  GroupHookJson,
  GroupHookParams,
  GroupParams,
  HookEventsParams,
  HookKeyParams,
  HookKeyValueParams,
  PROJECT_HOOK_SWITCHES,
  ProjectHookJson,
  ProjectHookParams,
  ProjectParams,
  ResendHookEventParams,
  RetryWebhookEventJson,
  SYSTEM_HOOK_SWITCHES,
  SystemHookJson,
  SystemHookParams,
  SystemHookTestJson,
  SystemParams,
  TestHookParams,
  UpdateGroupHookParams,
  UpdateProjectHookParams,
  UpdateSystemHookParams,
  WebHookLogJson,
  type HookSwitch,
} from './schemas.js'
import {
  authorizeHooks,
  createHook,
  deleteHook,
  findHook,
  listHooks,
  setHookKey,
  unsetHookKey,
  updateHook,
  type HookInput,
  type HookParent,
} from './service.js'
import { listHookEvents, resendHookEvent } from './events.js'
import { testHook, testSystemHook } from './test-hook.js'
import type { WebHookRow } from '../../db/schema.js'
import { Type } from '@sinclair/typebox'

// Webhooks' REST API: GL API::ProjectHooks, EE API::GroupHooks and API::SystemHooks with the shared API::Hooks
// modules (url_variables, custom_headers, events, resend, test).

/** The parent each request's `before` step found and authorized, for its handler. */
const parents = new WeakMap<FastifyRequest, HookParent>()

function parentOf(request: FastifyRequest): HookParent {
  return parents.get(request) ?? { type: 'SystemHook' }
}

/** Grape's `before { authorize! :admin_web_hook, user_project }`: refusals come before parameter errors. */
async function projectHooksFirst(request: FastifyRequest, raw: Record<string, unknown>) {
  const parent: HookParent = { type: 'ProjectHook', loaded: await findProject(request.ctx, String(raw.id)) }
  authorizeHooks(request.ctx, parent)
  parents.set(request, parent)
}

/** GitLab Free has no group hooks API: its routes are unknown paths there, whoever asks. */
async function groupHooksFirst(request: FastifyRequest, raw: Record<string, unknown>) {
  if (!hasGroupHooks(request.ctx.config.tier)) throw new RouteNotFound()
  if (!request.ctx.caller.user) throw new Unauthorized()
  const parent: HookParent = { type: 'GroupHook', loaded: await findGroup(request.ctx, String(raw.id)) }
  authorizeHooks(request.ctx, parent)
  parents.set(request, parent)
}

function hookInput(input: Record<string, unknown>, switches: readonly HookSwitch[]): HookInput {
  const given: HookInput['switches'] = {}
  for (const name of switches) if (typeof input[name] === 'boolean') given[name] = input[name]
  const text = (name: string) => (typeof input[name] === 'string' ? input[name] : undefined)
  return {
    url: text('url'),
    token: text('token'),
    name: text('name'),
    description: text('description'),
    switches: given,
    enableSslVerification: typeof input.enable_ssl_verification === 'boolean' ? input.enable_ssl_verification : undefined,
    pushEventsBranchFilter: text('push_events_branch_filter'),
    branchFilterStrategy: input.branch_filter_strategy as HookInput['branchFilterStrategy'],
    customWebhookTemplate: text('custom_webhook_template'),
    urlVariables: input.url_variables as HookInput['urlVariables'],
    customHeaders: input.custom_headers as HookInput['customHeaders'],
  }
}

/** How one kind of hook is addressed and shown. */
interface HookRoutes {
  base: string
  before: (request: FastifyRequest, raw: Record<string, unknown>) => void | Promise<void>
  authenticated: boolean
  switches: readonly HookSwitch[]
  params: { list: TObject; one: TObject; create: TObject; update: TObject }
  json: typeof ProjectHookJson | typeof GroupHookJson | typeof SystemHookJson
  present: (hook: WebHookRow, now: Date, inList: boolean) => unknown
}

function listHeaders(request: FastifyRequest, reply: FastifyReply, ctx: Context, page: Parameters<typeof setOffsetHeaders>[3]) {
  setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
}

function registerHookRoutes(api: ApiRouter, kind: HookRoutes) {
  const { base, before, authenticated } = kind
  const one = `${base}/:hook_id`
  const common = { before, authenticated }

  api.get(base, { ...common, params: kind.params.list, response: { 200: Type.Array(kind.json) } }, async (request, reply) => {
    const { ctx } = request
    const { page, perPage } = offsetWindow(request.input as { page: number; per_page: number }, ctx.settings)
    const list = await listHooks(ctx, parentOf(request), page, perPage)
    listHeaders(request, reply, ctx, list)
    return list.rows.map((hook) => kind.present(hook, ctx.now(), true))
  })

  api.get(one, { ...common, params: kind.params.one, response: { 200: kind.json } }, async (request) => {
    const { ctx } = request
    const input = request.input as { hook_id: number }
    return kind.present(await findHook(ctx, parentOf(request), input.hook_id), ctx.now(), false)
  })

  api.post(base, { ...common, params: kind.params.create, response: { 201: kind.json } }, async (request, reply) => {
    const { ctx } = request
    const hook = await createHook(ctx, parentOf(request), hookInput(request.input as Record<string, unknown>, kind.switches))
    return reply.code(201).send(kind.present(hook, ctx.now(), false))
  })

  api.put(one, { ...common, params: kind.params.update, response: { 200: kind.json } }, async (request) => {
    const { ctx } = request
    const input = request.input as Record<string, unknown> & { hook_id: number }
    const hook = await updateHook(ctx, parentOf(request), input.hook_id, hookInput(input, kind.switches))
    return kind.present(hook, ctx.now(), false)
  })

  api.delete(one, { ...common, params: kind.params.one }, async (request, reply) => {
    const input = request.input as { hook_id: number }
    await deleteHook(request.ctx, parentOf(request), input.hook_id, unmodifiedSinceOf(request.headers['if-unmodified-since']))
    return reply.code(204).send()
  })

  for (const [path, list] of [
    ['url_variables', 'urlVariables'],
    ['custom_headers', 'customHeaders'],
  ] as const) {
    api.put(`${one}/${path}/:key`, { ...common, params: HookKeyValueParams }, async (request, reply) => {
      const { hook_id, key, value } = request.input
      await setHookKey(request.ctx, parentOf(request), hook_id, list, key, value)
      return reply.code(204).send()
    })
    api.delete(`${one}/${path}/:key`, { ...common, params: HookKeyParams }, async (request, reply) => {
      const { hook_id, key } = request.input
      await unsetHookKey(request.ctx, parentOf(request), hook_id, list, key)
      return reply.code(204).send()
    })
  }

  api.get(
    `${one}/events`,
    { ...common, params: HookEventsParams, response: { 200: Type.Array(WebHookLogJson) } },
    async (request, reply) => {
      const { ctx, input } = request
      const list = await listHookEvents(ctx, parentOf(request), input.hook_id, {
        status: input.status,
        page: input.page,
        perPage: input.per_page,
      })
      listHeaders(request, reply, ctx, list)
      return list.rows.map(presentHookLog)
    },
  )

  api.post(
    `${one}/events/:hook_log_id/resend`,
    { ...common, params: ResendHookEventParams, response: { 201: RetryWebhookEventJson } },
    async (request, reply) => {
      const { ctx, input } = request
      const sent = await resendHookEvent(ctx, parentOf(request), input.hook_id, input.hook_log_id)
      if (sent.status === null) throw new Unprocessable(sent.message)
      return reply.code(201).send({ response_status: sent.status })
    },
  )
}

/** `POST …/hooks/:hook_id/test/:trigger` for project and group hooks: GitLab's `created!` when a 2xx came back. */
function registerTestRoute(api: ApiRouter, base: string, before: HookRoutes['before'], authenticated: boolean) {
  api.post(`${base}/:hook_id/test/:trigger`, { before, authenticated, params: TestHookParams }, async (request, reply) => {
    const parent = parentOf(request)
    if (parent.type === 'SystemHook') throw new RouteNotFound()
    // GL API::Hooks::TriggerTest: created only for a 2xx, else 422 with what came back.
    const sent = await testHook(request.ctx, parent, request.input.hook_id, request.input.trigger)
    if (sent.status === null || sent.status < 200 || sent.status > 299) throw new Unprocessable(sent.message)
    return reply.code(201).type('application/json').send('{"message":"201 Created"}')
  })
}

/** Project hooks, group hooks (Premium and up) and system hooks. */
export function registerWebhookRoutes(api: ApiRouter) {
  registerHookRoutes(api, {
    base: '/projects/:id/hooks',
    before: projectHooksFirst,
    authenticated: true,
    switches: PROJECT_HOOK_SWITCHES,
    params: { list: ProjectParams, one: ProjectHookParams, create: CreateProjectHookParams, update: UpdateProjectHookParams },
    json: ProjectHookJson,
    // GL API::ProjectHooks lists hooks without the names of their URL variables and custom headers.
    present: (hook, now, inList) => presentProjectHook(hook, now, { withSecretNames: !inList }),
  })
  registerTestRoute(api, '/projects/:id/hooks', projectHooksFirst, true)

  registerHookRoutes(api, {
    base: '/groups/:id/hooks',
    before: groupHooksFirst,
    authenticated: false,
    switches: GROUP_HOOK_SWITCHES,
    params: { list: GroupParams, one: GroupHookParams, create: CreateGroupHookParams, update: UpdateGroupHookParams },
    json: GroupHookJson,
    present: (hook, now) => presentGroupHook(hook, now),
  })
  registerTestRoute(api, '/groups/:id/hooks', groupHooksFirst, false)

  registerHookRoutes(api, {
    base: '/hooks',
    before: adminOnly,
    authenticated: true,
    switches: SYSTEM_HOOK_SWITCHES,
    params: { list: SystemParams, one: SystemHookParams, create: CreateSystemHookParams, update: UpdateSystemHookParams },
    json: SystemHookJson,
    present: (hook, now) => presentSystemHook(hook, now),
  })
  api.post(
    '/hooks/:hook_id',
    { before: adminOnly, params: SystemHookParams, response: { 201: SystemHookTestJson } },
    async (request, reply) => reply.code(201).send((await testSystemHook(request.ctx, request.input.hook_id)).data),
  )
}
