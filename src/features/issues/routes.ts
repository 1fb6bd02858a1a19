import type { ApiRouter } from '../../http/route.js'

export function registerIssueRoutes(api: ApiRouter) {
  void api
}
