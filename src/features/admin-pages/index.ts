import type { WebRouter } from '../sessions/index.js'
import type { SettingsCache } from '../settings/index.js'
import { registerAdminHookPages } from './hooks.js'
import { registerAdminJobPages } from './jobs.js'
import { registerAdminListPages } from './lists.js'
import { registerAdminOverviewPage } from './overview.js'
import { registerAdminSettingsPages } from './settings.js'
import { registerAdminUserPages } from './users.js'

/** The admin area under /admin: overview, users (with impersonation), projects, groups, settings, system hooks and jobs. */
export function registerAdminPages(web: WebRouter, deps: { settings: SettingsCache }) {
  registerAdminOverviewPage(web)
  registerAdminUserPages(web)
  registerAdminListPages(web)
  registerAdminSettingsPages(web, deps.settings)
  registerAdminHookPages(web)
  registerAdminJobPages(web)
}
