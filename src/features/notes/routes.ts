import type { ApiRouter } from '../../http/route.js'

export function registerNoteRoutes(api: ApiRouter) {
  void api
}
