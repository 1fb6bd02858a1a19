import type { WebRouter } from '../sessions/index.js'
import { registerMergeRequestPageRoutes } from './pages.js'

/** The project's merge request list and each merge request's overview, commits and changes pages. */
export function registerMergeRequestPages(web: WebRouter) {
  registerMergeRequestPageRoutes(web)
}
