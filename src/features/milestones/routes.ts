import type { ApiRouter } from '../../http/route.js'

export function registerMilestoneRoutes(api: ApiRouter) {
  void api
}
