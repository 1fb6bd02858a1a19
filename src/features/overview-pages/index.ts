import type { WebRouter } from '../sessions/index.js'
import { registerDashboardPages } from './dashboard.js'
import { registerGroupPages } from './group.js'
import { registerHelpPages } from './help.js'
import { registerProjectOverviewPage } from './project.js'
import { registerSearchPage } from './search.js'
import { registerUserPages } from './user.js'

/** The pages people start from: the dashboard, explore, search, help, and the overviews of users, groups and projects. */
export function registerOverviewPages(web: WebRouter) {
  registerDashboardPages(web)
  registerSearchPage(web)
  registerHelpPages(web)
  registerGroupPages(web)
  registerUserPages(web)
  registerProjectOverviewPage(web)
}
