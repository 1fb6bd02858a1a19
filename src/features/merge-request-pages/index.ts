import type { WebRouter } from '../sessions/index.js'
import { registerMergeRequestActions } from './actions.js'
import { registerEditMergeRequestPages } from './edit.js'
import { registerNewMergeRequestPages } from './new.js'
import { registerMergeRequestPageRoutes } from './pages.js'

/**
 * The project's merge request list, a new merge request, and each merge request's overview, commits and changes
 * pages, with its edit form, comments and threads on diff lines, Close, Reopen, Approve and Merge.
 */
export function registerMergeRequestPages(web: WebRouter) {
  registerMergeRequestPageRoutes(web)
  registerNewMergeRequestPages(web)
  registerEditMergeRequestPages(web)
  registerMergeRequestActions(web)
}
