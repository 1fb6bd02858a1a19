import type { User } from '../../core/caller.js'
import { lastTextOf } from '../../web/form-values.js'
import type { WebHandler, WebRequest } from '../sessions/index.js'

// What the signed-in user's settings pages share: their sidebar and breadcrumbs (src/web/user-settings-sidebar.ts, which
// the applications page shows too), that only a signed-in user opens them, and the fields of Rails-style forms.

export {
  USER_SETTINGS_PATHS,
  userSettingsBreadcrumbs,
  userSettingsSidebar,
  type UserSettingsSection,
} from '../../web/user-settings-sidebar.js'

/** A page of the signed-in user's own settings: visitors are sent to sign in (Devise's authenticate_user!). */
export function userSettingsPage(handler: (w: WebRequest, user: User) => Promise<unknown>): WebHandler {
  return async (w) => {
    const user = w.ctx.caller.user
    if (!user) return w.redirectToSignIn()
    return handler(w, user)
  }
}

/** The fields of a Rails-style form (`user[name]`), as they came. */
export function formOf(w: WebRequest, model: string): Record<string, unknown> {
  const form = w.params[model]
  return form && typeof form === 'object' && !Array.isArray(form) ? (form as Record<string, unknown>) : {}
}

/** The last value of a checkbox that follows a hidden "0" of the same name (Rails' check_box). */
export function checkboxOf(form: Record<string, unknown>, name: string): boolean | undefined {
  const last = lastTextOf(form[name])
  if (last === undefined) return undefined
  return last === '1' || last === 'true' || last === 'on'
}
