import type { WebRouter } from '../../sessions/index.js'

/** GET /oauth/authorize and the consent page's answers. */
export function registerAuthorizePages(web: WebRouter) {
  void web
}
