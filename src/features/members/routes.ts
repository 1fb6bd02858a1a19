import type { ApiRouter } from '../../http/route.js'

export function registerMemberRoutes(router: ApiRouter) {
  void router
}
