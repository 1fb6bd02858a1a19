import type { WebRouter } from '../sessions/index.js'
import { registerAccessTokenPages } from './access-tokens.js'
import { registerPasswordPages } from './password.js'
import { registerProfilePages } from './profile.js'

export { userSettingsBreadcrumbs, userSettingsSidebar, type UserSettingsSection } from './shared.js'

/** The signed-in user's settings pages: profile, password and personal access tokens. */
export function registerUserSettingsPages(web: WebRouter) {
  registerProfilePages(web)
  registerPasswordPages(web)
  registerAccessTokenPages(web)
}
