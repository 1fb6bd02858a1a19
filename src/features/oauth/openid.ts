import type { FastifyInstance } from 'fastify'
import type { PlainRouteDeps } from '../../http/route.js'

/** OpenID Connect: discovery, signing keys and userinfo. */
export function registerOpenIdRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  void app
  void deps
}
