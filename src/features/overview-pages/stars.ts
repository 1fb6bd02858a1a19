import { csrfField, html, type Html } from '../../web/html.js'
import { listControls, listQueryOf, pager, textOf, timeOf, type ListView } from '../../web/list-page.js'
import type { LoadedProject } from '../access/index.js'
import {
  countProjectStarrers,
  isStarredByCaller,
  listStarrers,
  projectPage,
  projectPageRoutes,
  projectPath,
  renderProjectPage,
  STARRER_ORDERS,
  toggleStar,
  type Starrer,
  type StarrerOrder,
} from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { avatar } from './parts.js'

// Stars on a project's pages: the Star button of the overview (GL ProjectsController#toggle_star) and the list of
// starrers (GL Projects::StarrersController).

const STARRERS_PER_PAGE = 20

/** GL `starrers_sort_options_hash`, by name first (GL `sort_value_name`). */
const SORT_TABS: { label: string; status: StarrerOrder }[] = [
  { label: 'Name', status: 'name_asc' },
  { label: 'Name, descending', status: 'name_desc' },
  { label: 'Recently starred', status: 'created_desc' },
  { label: 'Oldest starred', status: 'created_asc' },
]

/** Devise's answer to a JSON request of a visitor who has not signed in. */
const SIGN_IN_FIRST = { error: 'You need to sign in or sign up before continuing.' }

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`
}

function starrersPath(loaded: LoadedProject): string {
  return projectPath(loaded, '/-/starrers')
}

/**
 * The overview's Star button and count: a form that toggles the star for a signed-in user; for a visitor, only the
 * count, linking to the starrers.
 */
export async function starButton(w: WebRequest, loaded: LoadedProject): Promise<Html> {
  const count = loaded.project.star_count
  if (!w.ctx.caller.user) {
    return html`<a class="button stars" href="${starrersPath(loaded)}" title="Starrers">&#9733; ${plural(count, 'star')}</a>`
  }
  const [starred, token] = await Promise.all([isStarredByCaller(w.ctx, loaded), w.csrfToken()])
  return html`<form class="count-button stars" method="post" action="${projectPath(loaded, '/toggle_star.json')}">
    ${csrfField(token)}
    <button type="submit" class="star-toggle" aria-pressed="${starred ? 'true' : 'false'}">
      ${starred ? html`&#9733; Unstar` : html`&#9734; Star`}
    </button>
    <a class="count" href="${starrersPath(loaded)}" title="Starrers" aria-label="${plural(count, 'star')}">${count}</a>
  </form>`
}

function wantsJson(w: WebRequest): boolean {
  return (w.request.headers.accept ?? '').includes('application/json')
}

function sendJson(w: WebRequest, status: number, body: unknown) {
  return w.reply.code(status).type('application/json; charset=utf-8').header('cache-control', 'no-store').send(JSON.stringify(body))
}

/**
 * POST /<namespace>/<project>/toggle_star(.json): `{"star_count": N}` for a script asking for JSON; a plain form goes
 * back to the project.
 */
async function toggleStarOf(w: WebRequest, loaded: LoadedProject) {
  if (!w.ctx.caller.user) return wantsJson(w) ? sendJson(w, 401, SIGN_IN_FIRST) : w.redirectToSignIn()
  const starCount = await toggleStar(w.ctx, loaded)
  return wantsJson(w) ? sendJson(w, 200, { star_count: starCount }) : w.redirect(projectPath(loaded))
}

function starrerList(w: WebRequest, starrers: readonly Starrer[], empty: string): Html {
  if (starrers.length === 0) return html`<div class="empty-state">${empty}</div>`
  const viewerId = w.ctx.caller.user?.id ?? null
  return html`<ul class="list starrers">
    ${starrers.map(
      ({ user, starredSince }) =>
        html`<li>
          ${avatar(user.name)}
          <div class="grow">
            <a class="title" href="/${user.username}">${user.name}</a> <span class="muted">@${user.username}</span>
            ${user.id === viewerId ? html`<span class="badge status-opened">It's you</span>` : ''}
          </div>
          <span class="meta">Starred ${timeOf(starredSince)}</span>
        </li>`,
    )}
  </ul>`
}

/** GET /<namespace>/<project>/-/starrers: who starred the project, by name unless sorted otherwise, searchable. */
async function showStarrers(w: WebRequest, loaded: LoadedProject) {
  const { search, page } = listQueryOf(w.params)
  const sortText = textOf(w.params.sort)
  const order = (STARRER_ORDERS as readonly string[]).includes(sortText) ? (sortText as StarrerOrder) : 'name_asc'
  const [list, counts] = await Promise.all([
    listStarrers(w.ctx, loaded, { search: search || undefined, order, page, perPage: STARRERS_PER_PAGE }),
    countProjectStarrers(w.ctx, loaded),
  ])
  const view: ListView<StarrerOrder> = {
    base: starrersPath(loaded),
    status: order,
    defaultStatus: 'name_asc',
    search,
    page,
    statusParam: 'sort',
  }
  // Past the last page the count is not known exactly; the page still links back.
  const total = list.total ?? page * STARRERS_PER_PAGE + (list.hasNext ? 1 : 0)
  const empty = search
    ? 'No starrers matched your search'
    : counts.total === 0
      ? 'Nobody has starred this repository yet'
      : 'No starrers on this page'
  const body = html`<h1>Starrers</h1>
    <p class="starrer-counts">
      ${plural(counts.total, 'starrer')}: ${counts.publicProfiles} public and ${counts.total - counts.publicProfiles} private
    </p>
    ${list.rows.length > 0 || search ? listControls(view, SORT_TABS, 'starrer') : ''} ${starrerList(w, list.rows, empty)}
    ${list.rows.length > 0 || page > 1 ? pager(view, STARRERS_PER_PAGE, total, 'starrers') : ''}`
  return renderProjectPage(w, loaded, { title: 'Starrers', section: null, crumbs: [{ text: 'Starrers' }] }, body)
}

export function registerStarPages(web: WebRouter) {
  for (const route of projectPageRoutes('/toggle_star')) web.post(route, projectPage(toggleStarOf))
  for (const route of projectPageRoutes('/-/starrers')) web.get(route, projectPage(showStarrers))
}
