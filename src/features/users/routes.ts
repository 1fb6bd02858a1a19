import type { ApiRouter } from '../../http/route.js'

export function registerUserRoutes(api: ApiRouter) {
  void api
}
