import type { ApiRouter } from '../../http/route.js'

export function registerGroupRoutes(router: ApiRouter) {
  void router
}
