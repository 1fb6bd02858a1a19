import type { ApiRouter } from '../../http/route.js'

export function registerLabelRoutes(api: ApiRouter) {
  void api
}
