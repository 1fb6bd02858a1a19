import { isAdmin } from '../../core/caller.js'
import { html, type Crumb, type Html, type NavItem } from '../../web/html.js'
import type { WebHandler, WebRequest } from '../sessions/index.js'

// The admin area's frame (GL Admin::ApplicationController, layouts/admin): administrators only, everyone else gets the
// 404 page as GitLab's admin routes answer; its own sidebar and breadcrumbs.

export type AdminSection = 'overview' | 'users' | 'projects' | 'groups' | 'settings' | 'hooks' | 'jobs'

/** The settings pages, as GitLab's admin sidebar lists them under Settings. */
export const SETTINGS_PAGES = [
  { page: 'general', label: 'General' },
  { page: 'reporting', label: 'Reporting' },
  { page: 'network', label: 'Network' },
  { page: 'repository', label: 'Repository' },
] as const

export type SettingsPage = (typeof SETTINGS_PAGES)[number]['page']

function sidebarItems(section: AdminSection, settingsPage: SettingsPage | null): NavItem[] {
  return [
    { label: 'Overview', href: '/admin', current: section === 'overview' },
    { label: 'Users', href: '/admin/users', current: section === 'users' },
    { label: 'Projects', href: '/admin/projects', current: section === 'projects' },
    { label: 'Groups', href: '/admin/groups', current: section === 'groups' },
    {
      label: 'Settings',
      href: '/admin/application_settings/general',
      current: section === 'settings' && settingsPage === null,
      children: SETTINGS_PAGES.map(({ page, label }) => ({
        label,
        href: `/admin/application_settings/${page}`,
        current: settingsPage === page,
      })),
    },
    { label: 'System hooks', href: '/admin/hooks', current: section === 'hooks' },
    { label: 'Jobs', href: '/admin/background_jobs', current: section === 'jobs' },
  ]
}

export interface AdminPageOptions {
  title: string
  section: AdminSection
  /** The settings page shown, under Settings. */
  settingsPage?: SettingsPage
  /** Breadcrumbs after "Admin area". */
  crumbs: Crumb[]
  flash?: { kind: 'alert' | 'notice'; text: string } | null
  status?: number
}

/** A page of the admin area: its sidebar and breadcrumbs around `body`. */
export function renderAdminPage(w: WebRequest, options: AdminPageOptions, body: Html) {
  return w.render(
    {
      title: `${options.title} · Admin area`,
      sidebar: { title: 'Admin area', href: '/admin', items: sidebarItems(options.section, options.settingsPage ?? null) },
      breadcrumbs: [{ text: 'Admin area', href: '/admin' }, ...options.crumbs],
      flash: options.flash ?? null,
    },
    body,
    options.status,
  )
}

/** A handler for administrators only: a visitor is sent to sign in, anyone else gets the 404 page. */
export function adminPage(handler: WebHandler): WebHandler {
  return async (w) => {
    if (!isAdmin(w.ctx.caller)) return w.notFound()
    return handler(w)
  }
}

/** A labelled one-button form, for an action on this page. */
export function actionButton(action: string, csrf: Html, label: string, variant: string, extra: Html = html``): Html {
  return html`<form method="post" action="${action}" class="inline">${csrf}${extra}<button type="submit" class="${variant}">${label}</button></form>`
}
