import type { NamespaceRow } from '../../db/schema.js'
import type { Crumb, NavItem, Sidebar } from '../../web/html.js'
import { canGroup, type LoadedGroup } from '../access/index.js'
import { canAdminGroupHooks } from '../webhooks/index.js'

// What every page of a group shares: its address, its sidebar and its breadcrumbs.

/** A group's pages, as the sidebar names them. */
export type GroupSection = 'overview' | 'members' | 'settings' | 'webhooks'

export function groupPath(group: NamespaceRow): string {
  return `/groups/${group.full_path}`
}

/** The group's sidebar: Settings for those who administer the group (GL `admin_group`), with Webhooks for those who may manage its hooks; `current` marked. */
export function groupSidebar(loaded: LoadedGroup, current: GroupSection): Sidebar {
  const base = groupPath(loaded.group)
  const items: NavItem[] = [
    { label: 'Group overview', href: base, current: current === 'overview' },
    { label: 'Members', href: `${base}/-/group_members`, current: current === 'members' },
  ]
  if (canGroup(loaded.access, 'admin_group')) {
    const children = [{ label: 'General', href: `${base}/-/edit`, current: current === 'settings' }]
    if (canAdminGroupHooks(loaded.access)) children.push({ label: 'Webhooks', href: `${base}/-/hooks`, current: current === 'webhooks' })
    items.push({ label: 'Settings', href: children[0].href, current: children.some((child) => child.current), children })
  }
  return { title: loaded.group.name, href: base, items }
}

/** The group and the groups above it, each linked. */
export function groupCrumbs(loaded: LoadedGroup): Crumb[] {
  const names = loaded.group.full_name.split(' / ')
  const paths = loaded.group.full_path.split('/')
  return paths.map((_, index) => ({ text: names[index] ?? paths[index], href: `/groups/${paths.slice(0, index + 1).join('/')}` }))
}
