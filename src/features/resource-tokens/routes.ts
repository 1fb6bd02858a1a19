import { Type } from '@sinclair/typebox'
import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { presentResourceToken, presentResourceTokenWithToken } from './present.js'
import {
  CreateResourceTokenParams,
  ListResourceTokensParams,
  ResourceAccessTokenJson,
  ResourceAccessTokenWithTokenJson,
  ResourceTokenParams,
  RotateResourceTokenParams,
} from './schemas.js'
import {
  createResourceToken,
  findTokenResource,
  listResourceTokens,
  revokeResourceToken,
  rotateResourceToken,
  showResourceToken,
} from './service.js'

/** The same endpoints serve projects and groups (GL resource_access_tokens.rb `%w[project group].each`). */
const SOURCES = [
  ['projects', 'project'],
  ['groups', 'group'],
] as const

export function registerResourceTokenRoutes(api: ApiRouter) {
  for (const [plural, kind] of SOURCES) {
    const tokens = `/${plural}/:id/access_tokens`

    api.get(
      tokens,
      { params: ListResourceTokensParams, response: { 200: Type.Array(ResourceAccessTokenJson) } },
      async (request, reply) => {
        const { ctx, input } = request
        const resource = await findTokenResource(ctx, kind, input.id)
        const page = await listResourceTokens(ctx, resource, input.state, offsetWindow(input, ctx.settings))
        setOffsetHeaders(request, reply, ctx.config.externalUrl, page)
        const now = ctx.now()
        return page.rows.map((token) => presentResourceToken(token.row, token.accessLevel, now))
      },
    )

    api.get(`${tokens}/:token_id`, { params: ResourceTokenParams, response: { 200: ResourceAccessTokenJson } }, async (request) => {
      const { ctx, input } = request
      const resource = await findTokenResource(ctx, kind, input.id)
      const token = await showResourceToken(ctx, resource, input.token_id)
      return presentResourceToken(token.row, token.accessLevel, ctx.now())
    })

    api.post(tokens, { params: CreateResourceTokenParams, response: { 201: ResourceAccessTokenWithTokenJson } }, async (request, reply) => {
      const { ctx, input } = request
      const { id, ...attributes } = input
      const resource = await findTokenResource(ctx, kind, id)
      const created = await createResourceToken(ctx, resource, attributes)
      return reply.code(201).send(presentResourceTokenWithToken(created.row, created.accessLevel, created.token, ctx.now()))
    })

    api.post(
      `${tokens}/:token_id/rotate`,
      { params: RotateResourceTokenParams, response: { 200: ResourceAccessTokenWithTokenJson } },
      async (request, reply) => {
        const { ctx, input } = request
        const resource = await findTokenResource(ctx, kind, input.id)
        const rotated = await rotateResourceToken(ctx, resource, input.token_id, input.expires_at)
        return reply.code(200).send(presentResourceTokenWithToken(rotated.row, rotated.accessLevel, rotated.token, ctx.now()))
      },
    )

    api.delete(`${tokens}/:token_id`, { params: ResourceTokenParams }, async (request, reply) => {
      const { ctx, input } = request
      await revokeResourceToken(ctx, await findTokenResource(ctx, kind, input.id), input.token_id)
      return reply.code(204).send()
    })
  }
}
