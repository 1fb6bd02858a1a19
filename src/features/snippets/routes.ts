import type { ApiRouter } from '../../http/route.js'

export function registerSnippetRoutes(api: ApiRouter): void {
  void api
}
