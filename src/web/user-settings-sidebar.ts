import type { Crumb, Sidebar } from './html.js'

// The sidebar of the signed-in user's settings pages (GL's "User settings"): the profile, password, access tokens and
// notifications pages, and the OAuth applications page, which lives with the applications.

export type UserSettingsSection = 'profile' | 'password' | 'access_tokens' | 'applications' | 'notifications'

/** The pages' paths, at GitLab's URLs. */
export const USER_SETTINGS_PATHS: Record<UserSettingsSection, string> = {
  profile: '/-/user_settings/profile',
  password: '/-/user_settings/password/edit',
  access_tokens: '/-/user_settings/personal_access_tokens',
  applications: '/-/user_settings/applications',
  notifications: '/-/profile/notifications',
}

const SECTIONS: { section: UserSettingsSection; label: string }[] = [
  { section: 'profile', label: 'Profile' },
  { section: 'password', label: 'Password' },
  { section: 'access_tokens', label: 'Access tokens' },
  { section: 'applications', label: 'Applications' },
  { section: 'notifications', label: 'Notifications' },
]

/** The sidebar of every user settings page, `current` marked. */
export function userSettingsSidebar(current: UserSettingsSection | null): Sidebar {
  return {
    title: 'User settings',
    href: USER_SETTINGS_PATHS.profile,
    items: SECTIONS.map(({ section, label }) => ({ label, href: USER_SETTINGS_PATHS[section], current: section === current })),
  }
}

/** The breadcrumbs of a user settings page: User settings, then the page. */
export function userSettingsBreadcrumbs(...trail: Crumb[]): Crumb[] {
  return [{ text: 'User settings', href: USER_SETTINGS_PATHS.profile }, ...trail]
}
