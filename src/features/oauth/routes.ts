import type { FastifyInstance, FastifyReply } from 'fastify'
import { mergedParams, type PlainRouteDeps } from '../../http/route.js'
import { readClientCredentials } from './client-authentication.js'
import { OAUTH_TOKEN_CORS, registerCrossOriginRoute } from './cors.js'
import { presentedAccessToken, stringParam } from './params.js'
import { presentTokenInfo, presentTokenResponse } from './present.js'
import { revokeToken } from './revoke.js'
import { issueToken } from './service.js'
import { describeToken } from './token-info.js'
import type { TokenQueue } from './token-queue.js'

/** Doorkeeper renders its JSON with a charset. */
const JSON_TYPE = 'application/json; charset=utf-8'

/** DK TokensController#revocation_error_response (config/locales/en.yml `doorkeeper.errors.messages.revoke.unauthorized`). */
const REVOKE_REFUSED = { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' }

function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type(JSON_TYPE).send(JSON.stringify(body))
}

/** POST /oauth/token, POST /oauth/revoke, GET /oauth/token/info, with CORS. */
export function registerOAuthRoutes(app: FastifyInstance, deps: PlainRouteDeps, tokens: TokenQueue) {
  registerCrossOriginRoute(app, OAUTH_TOKEN_CORS, {
    method: 'POST',
    url: '/oauth/token',
    async handler(request, reply) {
      const ctx = await deps.context(request)
      await deps.throttleProtectedPath(request, ctx)
      const params = mergedParams(request)
      const issued = await issueToken(ctx, tokens, params, readClientCredentials(request.headers.authorization, params))
      // RFC 6749 §5.1: a token response is never cached.
      reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
      return sendJson(reply, 200, presentTokenResponse(issued))
    },
  })

  registerCrossOriginRoute(app, OAUTH_TOKEN_CORS, {
    method: 'POST',
    url: '/oauth/revoke',
    async handler(request, reply) {
      const ctx = await deps.context(request)
      const params = mergedParams(request)
      const result = await revokeToken(ctx, stringParam(params, 'token'), readClientCredentials(request.headers.authorization, params))
      return result === 'revoked' ? sendJson(reply, 200, {}) : sendJson(reply, 403, REVOKE_REFUSED)
    },
  })

  app.get('/oauth/token/info', async (request, reply) => {
    const ctx = await deps.context(request)
    const info = await describeToken(ctx, presentedAccessToken(request))
    return sendJson(reply, 200, presentTokenInfo(info))
  })
}
