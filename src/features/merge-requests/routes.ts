import type { ApiRouter } from '../../http/route.js'

export function registerMergeRequestRoutes(api: ApiRouter) {
  void api
}
