import type { User } from '../../core/caller.js'
import { NotFound } from '../../core/errors.js'
import { html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { findGroup, findProjectsByIds } from '../access/index.js'
import { recentEvents } from '../events/index.js'
import { findUserByIdOrUsername } from '../users/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { personalProjectsOf } from './lists.js'
import { activityList, avatar, projectList } from './parts.js'

const ACTIVITY_SHOWN = 20

/** Full paths of the projects events name, for their links. */
async function projectPathsOf(w: WebRequest, projectIds: (number | null)[]): Promise<Map<number, string>> {
  const ids = [...new Set(projectIds.filter((id): id is number => id !== null))]
  const rows = await findProjectsByIds(w.ctx.db, ids)
  return new Map(rows.map((row) => [row.id, row.full_path]))
}

/** GET /<username>: the profile, personal projects and activity (GL users/show). */
async function showUser(w: WebRequest, user: User) {
  const { ctx } = w
  const hidden = user.private_profile === 1 && ctx.caller.user?.id !== user.id && !ctx.caller.user?.admin
  const [projects, events] = hidden
    ? [null, []]
    : await Promise.all([personalProjectsOf(ctx, user), recentEvents(ctx, { user }, ACTIVITY_SHOWN)])
  const paths = await projectPathsOf(
    w,
    events.map((event) => event.project_id),
  )
  const details = [
    user.job_title && user.organization ? `${user.job_title} at ${user.organization}` : user.job_title || user.organization,
    user.location,
  ].filter(Boolean)
  return w.render(
    { title: `${user.name} (@${user.username})`, breadcrumbs: [{ text: user.name }] },
    html`<div class="header-row profile">
        ${avatar(user.name, 'large')}
        <div>
          <h1>${user.name}</h1>
          <div class="muted">@${user.username} · Member since ${timeOf(user.created_at)}</div>
          ${details.length > 0 ? html`<div>${details.join(' · ')}</div>` : ''}
          ${user.website_url ? html`<div><a href="${user.website_url}" rel="nofollow noreferrer noopener">${user.website_url}</a></div>` : ''}
        </div>
      </div>
      ${user.bio && !hidden ? html`<p class="bio">${user.bio}</p>` : ''}
      ${
        hidden
          ? html`<div class="empty-state">This user has a private profile.</div>`
          : html`<h2>Personal projects</h2>
            ${projectList(projects?.views ?? [], html`${user.name} has no personal projects you can see.`)}
            <h2>Activity</h2>
            ${activityList(events, paths, 'No activity you can see.')}`
      }`,
  )
}

export function registerUserPages(web: WebRouter) {
  // One path segment names a user, or else a group (GitLab serves both at /<path>).
  web.get('/:namespace', async (w) => {
    const path = String((w.request.params as Record<string, string>).namespace)
    const user = await findUserByIdOrUsername(w.ctx.db, path)
    if (user && !/^\d+$/.test(path) && user.state !== 'blocked') return showUser(w, user)
    try {
      const loaded = await findGroup(w.ctx, path)
      if (!/^\d+$/.test(path)) return w.redirect(`/groups/${loaded.group.full_path}`)
    } catch (error) {
      if (!(error instanceof NotFound)) throw error
    }
    return w.notFound()
  })
}
