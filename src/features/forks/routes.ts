import type { ApiRouter } from '../../http/route.js'

export function registerForkRoutes(api: ApiRouter): void {
  void api
}
