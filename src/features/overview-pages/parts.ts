import { html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import type { EventJson } from '../events/index.js'
import type { ProjectView } from '../projects/index.js'

// What the overview pages share: avatars, project and group rows, and activity.

/** A letter avatar (svc keeps no pictures): the first letter of the name on a tinted circle. */
export function avatar(name: string, size: '' | 'large' = ''): Html {
  return html`<span class="avatar ${size}" aria-hidden="true">${(name.trim()[0] ?? '?').toUpperCase()}</span>`
}

const VISIBILITY_NAMES: Record<number, string> = { 0: 'Private', 10: 'Internal', 20: 'Public' }

export function visibilityBadge(level: number): Html {
  return html`<span class="badge">${VISIBILITY_NAMES[level] ?? 'Private'}</span>`
}

/** A list of projects, or what to do when there is none. */
export function projectList(views: readonly ProjectView[], empty: Html): Html {
  if (views.length === 0) return html`<div class="empty-state">${empty}</div>`
  return html`<ul class="list projects">
    ${views.map(
      ({ project }) =>
        html`<li>
          ${avatar(project.name)}
          <div class="grow">
            <a class="title" href="/${project.full_path}">${project.full_name}</a> ${visibilityBadge(project.visibility_level)}
            ${project.description ? html`<div class="meta">${project.description}</div>` : ''}
          </div>
          <span class="meta" title="Stars">&#9733; ${project.star_count}</span>
          <span class="meta">Updated ${timeOf(project.last_activity_at)}</span>
        </li>`,
    )}
  </ul>`
}

/** A list of groups: name, path and description. */
export function groupList(
  groups: readonly { full_name: string; full_path: string; description: string; visibility_level: number }[],
  empty: Html,
): Html {
  if (groups.length === 0) return html`<div class="empty-state">${empty}</div>`
  return html`<ul class="list groups">
    ${groups.map(
      (group) =>
        html`<li>
          ${avatar(group.full_name)}
          <div class="grow">
            <a class="title" href="/groups/${group.full_path}">${group.full_name}</a> ${visibilityBadge(group.visibility_level)}
            ${group.description ? html`<div class="meta">${group.description}</div>` : ''}
          </div>
        </li>`,
    )}
  </ul>`
}

/** Where an event's target lives, when the event names one the page can link. */
function targetLink(event: EventJson, projectPath: string | null): Html {
  if (event.push_data) {
    const ref = event.push_data.ref
    const where = projectPath ? html`<a href="/${projectPath}/-/commits/${ref}">${ref}</a>` : html`<strong>${ref}</strong>`
    return html`${event.push_data.ref_type} ${where}${event.push_data.commit_title ? html`: ${event.push_data.commit_title}` : ''}`
  }
  if (!event.target_title) return event.target_type === null ? html`project` : html``
  const kind = event.target_type
  const suffix =
    kind === 'Issue'
      ? `/-/issues/${event.target_iid}`
      : kind === 'MergeRequest'
        ? `/-/merge_requests/${event.target_iid}`
        : kind === 'Milestone'
          ? `/-/milestones/${event.target_iid}`
          : null
  const name = kind ? kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() : ''
  return projectPath && suffix
    ? html`${name} <a href="/${projectPath}${suffix}">${event.target_title}</a>`
    : html`${name} <strong>${event.target_title}</strong>`
}

/** Recent activity: who did what, where and when. `projectPaths` names each event's project. */
export function activityList(events: readonly EventJson[], projectPaths: ReadonlyMap<number, string>, empty: string): Html {
  if (events.length === 0) return html`<p class="empty">${empty}</p>`
  return html`<ol class="activity">
    ${events.map((event) => {
      const path = event.project_id === null ? null : (projectPaths.get(event.project_id) ?? null)
      const author = event.author_username ?? event.author?.username ?? ''
      return html`<li>
        <a href="/${author}">${event.author?.name ?? author}</a> ${event.action_name} ${targetLink(event, path)}
        ${path ? html`in <a href="/${path}">${path}</a>` : ''}
        <span class="meta muted">${timeOf(event.created_at)}</span>
      </li>`
    })}
  </ol>`
}
