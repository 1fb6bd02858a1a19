import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { isAdmin } from '../../core/caller.js'
import { Unauthorized } from '../../core/errors.js'
import { AVAILABLE_SCOPES } from '../../core/scopes.js'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import { adminOnly, mergedParams, type ApiRouter } from '../../http/route.js'
import {
  presentImpersonationToken,
  presentImpersonationTokenWithToken,
  presentToken,
  presentTokenWithLastUsedIps,
  presentTokenWithToken,
} from './present.js'
import {
  CreateImpersonationTokenParams,
  CreatePersonalAccessTokenParams,
  ImpersonationTokenJson,
  ImpersonationTokenParams,
  ImpersonationTokenWithTokenJson,
  ListImpersonationTokensParams,
  ListPersonalAccessTokensParams,
  PersonalAccessTokenJson,
  PersonalAccessTokenWithLastUsedIpsJson,
  PersonalAccessTokenWithTokenJson,
  RotateParams,
  RotateTokenParams,
  TokenIdParams,
} from './schemas.js'
import {
  createImpersonationToken,
  createPersonalAccessToken,
  findImpersonationToken,
  findPersonalAccessToken,
  listImpersonationTokens,
  listPersonalAccessTokens,
  revokeImpersonationToken,
  revokeOwnToken,
  revokePersonalAccessToken,
  rotateOwnToken,
  rotatePersonalAccessToken,
  showOwnToken,
} from './service.js'

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

/** GL personal_access_tokens.rb restrict_non_admins!: naming another user's id is 401 for non-admins, before anything else. */
function restrictNonAdmins(request: FastifyRequest, raw: Record<string, unknown>) {
  const caller = request.ctx.caller
  if (isAdmin(caller) || isBlank(raw.user_id)) return
  if (String(raw.user_id).trim() !== String(caller.user?.id)) throw new Unauthorized()
}

/** Every scope lets a token look at or revoke itself (GL SelfInformation: allow_access_with_scope all_available_scopes). */
const SELF_SCOPES = AVAILABLE_SCOPES.filter((scope) => scope !== 'api')

export function registerTokenRoutes(api: ApiRouter) {
  api.post(
    '/users/:user_id/personal_access_tokens',
    { params: CreatePersonalAccessTokenParams, before: adminOnly, response: { 201: PersonalAccessTokenWithTokenJson } },
    async (request, reply) => {
      const { user_id, ...input } = request.input
      const created = await createPersonalAccessToken(request.ctx, user_id, input)
      return reply.code(201).send(presentTokenWithToken(created.row, created.token, request.ctx.now()))
    },
  )

  api.get(
    '/users/:user_id/impersonation_tokens',
    { params: ListImpersonationTokensParams, before: adminOnly, response: { 200: Type.Array(ImpersonationTokenJson) } },
    async (request, reply) => {
      const { ctx, input } = request
      const page = await listImpersonationTokens(ctx, input.user_id, input.state, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      const now = ctx.now()
      return page.rows.map((row) => presentImpersonationToken(row, now))
    },
  )

  api.post(
    '/users/:user_id/impersonation_tokens',
    { params: CreateImpersonationTokenParams, before: adminOnly, response: { 201: ImpersonationTokenWithTokenJson } },
    async (request, reply) => {
      const { user_id, ...input } = request.input
      const created = await createImpersonationToken(request.ctx, user_id, input)
      return reply.code(201).send(presentImpersonationTokenWithToken(created.row, created.token, request.ctx.now()))
    },
  )

  api.get(
    '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    { params: ImpersonationTokenParams, before: adminOnly, response: { 200: ImpersonationTokenJson } },
    async (request) => {
      const { ctx, input } = request
      const token = await findImpersonationToken(ctx, input.user_id, input.impersonation_token_id)
      return presentImpersonationToken(token, ctx.now())
    },
  )

  api.delete(
    '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    { params: ImpersonationTokenParams, before: adminOnly },
    async (request, reply) => {
      await revokeImpersonationToken(request.ctx, request.input.user_id, request.input.impersonation_token_id)
      return reply.code(204).send()
    },
  )

  api.get(
    '/personal_access_tokens',
    { params: ListPersonalAccessTokensParams, before: restrictNonAdmins, response: { 200: Type.Array(PersonalAccessTokenJson) } },
    async (request, reply) => {
      const { ctx, input } = request
      const raw = mergedParams(request)
      const userIdGivenBlank = Object.hasOwn(raw, 'user_id') && input.user_id === undefined
      const page = await listPersonalAccessTokens(ctx, input, userIdGivenBlank, offsetWindow(input, ctx.settings))
      setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
      const now = ctx.now()
      return page.rows.map((row) => presentToken(row, now))
    },
  )

  api.get(
    '/personal_access_tokens/self',
    { scopes: SELF_SCOPES.filter((scope) => scope !== 'read_api'), response: { 200: PersonalAccessTokenWithLastUsedIpsJson } },
    async (request) => presentTokenWithLastUsedIps(await showOwnToken(request.ctx), request.ctx.now()),
  )

  api.delete('/personal_access_tokens/self', { scopes: SELF_SCOPES }, async (request, reply) => {
    await revokeOwnToken(request.ctx)
    return reply.code(204).send()
  })

  api.post(
    '/personal_access_tokens/self/rotate',
    { params: RotateParams, scopes: ['self_rotate'], response: { 200: PersonalAccessTokenWithTokenJson } },
    async (request, reply) => {
      const rotated = await rotateOwnToken(request.ctx, request.input.expires_at)
      // GL SelfRotation: `not_allowed!` for any credential other than a personal access token.
      if (!rotated) return reply.code(405).type('application/json').send('{"message":"405 Method Not Allowed"}')
      return reply.code(200).send(presentTokenWithToken(rotated.row, rotated.token, request.ctx.now()))
    },
  )

  api.get(
    '/personal_access_tokens/:id',
    { params: TokenIdParams, before: restrictNonAdmins, response: { 200: PersonalAccessTokenWithLastUsedIpsJson } },
    async (request) => {
      const token = await findPersonalAccessToken(request.ctx, request.input.id)
      return presentTokenWithLastUsedIps(token, request.ctx.now())
    },
  )

  api.post(
    '/personal_access_tokens/:id/rotate',
    { params: RotateTokenParams, before: restrictNonAdmins, response: { 200: PersonalAccessTokenWithTokenJson } },
    async (request, reply) => {
      const rotated = await rotatePersonalAccessToken(request.ctx, request.input.id, request.input.expires_at)
      return reply.code(200).send(presentTokenWithToken(rotated.row, rotated.token, request.ctx.now()))
    },
  )

  api.delete('/personal_access_tokens/:id', { params: TokenIdParams, before: restrictNonAdmins }, async (request, reply) => {
    await revokePersonalAccessToken(request.ctx, request.input.id)
    return reply.code(204).send()
  })
}
