import type { WebRouter } from '../sessions/index.js'
import { registerAccessTokenPages } from './access-tokens.js'
import { registerNotificationPages } from './notifications.js'
import { registerPasswordPages } from './password.js'
import { registerProfilePages } from './profile.js'

/** The signed-in user's settings pages: profile, password, personal access tokens and notifications. */
export function registerUserSettingsPages(web: WebRouter) {
  registerProfilePages(web)
  registerPasswordPages(web)
  registerAccessTokenPages(web)
  registerNotificationPages(web)
}
