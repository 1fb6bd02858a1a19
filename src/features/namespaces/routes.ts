import type { ApiRouter } from '../../http/route.js'

export function registerNamespaceRoutes(router: ApiRouter) {
  void router
}
