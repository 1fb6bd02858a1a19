import type { WebRouter } from '../sessions/index.js'
import { registerDashboardPages } from './dashboard.js'
import { registerForkPages } from './forks.js'
import { registerGroupPages } from './group.js'
import { registerHelpPages } from './help.js'
import { registerNewItemPages } from './new.js'
import { registerProjectOverviewPage } from './project.js'
import { registerSearchPage } from './search.js'
import { registerStarPages } from './stars.js'
import { registerUserPages } from './user.js'

/**
 * The pages people start from: the dashboard, explore, search, help, the new-item forms, the overviews of users,
 * groups and projects, and a project's stars and forks.
 */
export function registerOverviewPages(web: WebRouter) {
  registerDashboardPages(web)
  registerSearchPage(web)
  registerHelpPages(web)
  registerNewItemPages(web)
  registerGroupPages(web)
  registerUserPages(web)
  registerProjectOverviewPage(web)
  registerStarPages(web)
  registerForkPages(web)
}
