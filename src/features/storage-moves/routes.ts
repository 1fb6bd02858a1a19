import type { ApiRouter } from '../../http/route.js'

export function registerStorageMoveRoutes(api: ApiRouter): void {
  void api
}
