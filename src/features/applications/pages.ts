import type { WebRouter } from '../sessions/index.js'

/** The user settings pages of OAuth applications and of authorized applications. */
export function registerApplicationPages(web: WebRouter) {
  void web
}
