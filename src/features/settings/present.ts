import type { Settings } from '../../core/settings.js'
import type { SettingsJson } from './schemas.js'

/** The one settings record, as GitLab's ApplicationSetting entity shows it (with its legacy aliases). */
export function presentSettings(settings: Settings): SettingsJson {
  return {
    id: 1,
    ...settings,
    password_authentication_enabled: settings.password_authentication_enabled_for_web,
    signin_enabled: settings.password_authentication_enabled_for_web,
  }
}
