import type { WebRouter } from '../sessions/index.js'
import { registerGeneralSettingsPages } from './general.js'

/** A project's settings pages (GL Projects::Settings and ProjectsController#edit), at GitLab's URLs. */
export function registerSettingsPages(web: WebRouter) {
  registerGeneralSettingsPages(web)
}
