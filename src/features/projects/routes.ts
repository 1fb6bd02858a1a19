import type { ApiRouter } from '../../http/route.js'

export function registerProjectRoutes(router: ApiRouter) {
  void router
}
