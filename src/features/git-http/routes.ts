import type { FastifyInstance } from 'fastify'
import type { PlainRouteDeps } from '../../http/route.js'

export function registerGitHttpRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  void app
  void deps
}
