import type { ApiRouter } from '../../http/route.js'

export function registerTokenRoutes(api: ApiRouter) {
  void api
}
