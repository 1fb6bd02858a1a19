import type { ApiRouter } from '../../http/route.js'

export function registerEventRoutes(api: ApiRouter) {
  void api
}
