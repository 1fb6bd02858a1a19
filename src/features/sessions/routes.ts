import type { WebRouter } from './web-router.js'

/** Sign-in and sign-out pages. */
export function registerSessionPages(web: WebRouter) {
  void web
}
