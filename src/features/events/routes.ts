import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import { keysetWindow, offsetWindow, setKeysetHeaders, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { findUserByIdOrUsername } from '../users/index.js'
import type { EventActionName } from '../../core/event-actions.js'
import { presentEvent } from './present.js'
import { EventListResponse, ListOwnEventsParams, ListProjectEventsParams, ListUserEventsParams } from './schemas.js'
import { listOwnEvents, listProjectEvents, listUserEvents, type EventList, type EventListInput } from './service.js'
import { findProject } from '../access/index.js'

/** The events API also takes tokens with `read_user` on reads (GL events.rb `allow_access_with_scope`). */
const READ_SCOPES = ['read_user']

type FilterParams = Pick<ListProjectEventsParams, 'action' | 'target_type' | 'before' | 'after' | 'sort' | 'page' | 'per_page'> & {
  pagination?: 'offset' | 'keyset'
  cursor?: string
}

function listInputOf(ctx: Context, input: FilterParams): EventListInput {
  return {
    action: input.action as EventActionName | undefined,
    targetType: input.target_type,
    before: input.before,
    after: input.after,
    sort: input.sort,
    pagination:
      input.pagination === 'keyset' ? { kind: 'keyset', ...keysetWindow(input) } : { kind: 'offset', ...offsetWindow(input, ctx.settings) },
  }
}

function send(request: FastifyRequest, reply: FastifyReply, list: EventList, projectList: boolean) {
  const { ctx } = request
  if (list.page.kind === 'offset') setOffsetHeaders(request, reply, ctx.config.externalUrl, list.page.page)
  else setKeysetHeaders(request, reply, ctx.config.externalUrl, list.page.page)
  const options = { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now(), projectList }
  return list.visible.map((event) => presentEvent(event, list.targets, options))
}

export function registerEventRoutes(api: ApiRouter) {
  api.get('/events', { params: ListOwnEventsParams, scopes: READ_SCOPES, response: { 200: EventListResponse } }, async (request, reply) => {
    const { ctx, input } = request
    return send(request, reply, await listOwnEvents(ctx, input.scope, listInputOf(ctx, input)), false)
  })

  api.get(
    '/users/:id/events',
    { params: ListUserEventsParams, authenticated: false, scopes: READ_SCOPES, response: { 200: EventListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const user = await findUserByIdOrUsername(ctx.db, input.id)
      if (!user) throw new NotFound('User')
      return send(request, reply, await listUserEvents(ctx, user, listInputOf(ctx, input)), false)
    },
  )

  api.get(
    '/projects/:id/events',
    { params: ListProjectEventsParams, authenticated: false, response: { 200: EventListResponse } },
    async (request, reply) => {
      const { ctx, input } = request
      const loaded = await findProject(ctx, input.id)
      return send(request, reply, await listProjectEvents(ctx, loaded, listInputOf(ctx, input)), true)
    },
  )
}
