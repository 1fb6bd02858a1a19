import type { ApiRouter } from '../../http/route.js'

/** The administrators' REST API of OAuth applications (GL lib/api/applications.rb). */
export function registerApplicationRoutes(api: ApiRouter) {
  void api
}
