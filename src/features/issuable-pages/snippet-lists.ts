import { visibilityName, type VisibilityName } from '../../core/access.js'
import type { OffsetPage } from '../../db/pagination.js'
import type { SnippetRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { capitalized, listQueryOf, textOf, timeOf } from '../../web/list-page.js'
import { canCreatePersonalSnippet, canCreateProjectSnippet, canReadProjectSnippets, type LoadedProject } from '../access/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { buildSnippetViews, listProjectSnippets, listSnippets, type SnippetView } from '../snippets/index.js'
import { visibilityDescription } from './snippet-forms.js'

// The snippet lists (GL Dashboard::SnippetsController, Explore::SnippetsController, Projects::SnippetsController#index):
// the visitor's own, the public ones, and a project's, newest first, found as the API's lists find them.

const SNIPPETS_PER_PAGE = 20

/** GL SnippetsFinder scopes, as the list tabs name them. */
const SCOPES: { scope: string; label: string; visibility: VisibilityName | undefined }[] = [
  { scope: '', label: 'All', visibility: undefined },
  { scope: 'are_private', label: 'Private', visibility: 'private' },
  { scope: 'are_internal', label: 'Internal', visibility: 'internal' },
  { scope: 'are_public', label: 'Public', visibility: 'public' },
]

function pathOf(view: SnippetView): string {
  return view.projectFullPath === null ? `/-/snippets/${view.snippet.id}` : `/${view.projectFullPath}/-/snippets/${view.snippet.id}`
}

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`
}

function snippetRow(view: SnippetView): Html {
  const { snippet, author } = view
  const visibility = visibilityName(snippet.visibility_level)
  const files = view.repositoryExists ? view.files.length : 1
  return html`<li class="snippet-row" id="snippet_${snippet.id}">
    <div class="grow">
      <a class="title" href="${pathOf(view)}">${snippet.title}</a>
      <div class="meta">
        $${snippet.id} · authored ${timeOf(snippet.created_at)} by <a href="/${author.username}">${author.name}</a>
        ${view.projectFullPath === null ? '' : html` · in <a href="/${view.projectFullPath}">${view.projectFullPath}</a>`}
      </div>
    </div>
    <div class="meta row-side">
      <span class="badge visibility-badge" title="${visibilityDescription(visibility, view.projectFullPath !== null)}">${capitalized(visibility)}</span>
      <span class="file-count">${plural(files, 'file')}</span>
    </div>
  </li>`
}

interface ListPage {
  base: string
  scope: string
  page: number
}

function linkTo(view: ListPage, overrides: { scope?: string; page?: number }): string {
  const query = new URLSearchParams()
  const scope = overrides.scope ?? view.scope
  if (scope) query.set('scope', scope)
  const page = overrides.page ?? 1
  if (page > 1) query.set('page', String(page))
  return query.size > 0 ? `${view.base}?${query}` : view.base
}

function scopeTabs(view: ListPage, counts: (number | null)[]): Html {
  return html`<nav class="tabs state-tabs" aria-label="Snippet visibility">
    ${SCOPES.map(
      (tab, index) =>
        html`<a href="${linkTo(view, { scope: tab.scope })}" ${tab.scope === view.scope ? html`aria-current="page"` : ''}
          >${tab.label} <span class="badge count">${counts[index] ?? '10000+'}</span></a
        >`,
    )}
  </nav>`
}

function pager(view: ListPage, result: OffsetPage<unknown>): Html {
  if (view.page === 1 && !result.hasNext) return html``
  return html`<nav class="pagination" aria-label="Pages">
    ${view.page > 1 ? html`<a class="button" rel="prev" href="${linkTo(view, { page: view.page - 1 })}">Previous</a>` : ''}
    <span class="page-info">Page ${view.page}</span>
    ${result.hasNext ? html`<a class="button" rel="next" href="${linkTo(view, { page: view.page + 1 })}">Next</a>` : ''}
  </nav>`
}

/** GL shared/empty_states/_snippets. */
function emptyState(w: WebRequest, newPath: string | null, onDashboard: boolean): Html {
  if (!w.ctx.caller.user) return html`<div class="empty-state no-snippets"><p>There are no snippets to show.</p></div>`
  return html`<div class="empty-state no-snippets">
    <p><strong>Snippets are small pieces of code or notes that you want to keep.</strong></p>
    <p>They can be either public or private.</p>
    <p class="button-row centered">
      ${newPath ? html`<a class="button primary" href="${newPath}">New snippet</a>` : ''}
      ${onDashboard ? '' : html`<a class="button" href="/explore/snippets">Explore public snippets</a>`}
    </p>
  </div>`
}

function scopeOf(w: WebRequest): (typeof SCOPES)[number] {
  const given = textOf(w.params.scope)
  return SCOPES.find((tab) => tab.scope === given) ?? SCOPES[0]
}

async function listBody(
  w: WebRequest,
  options: {
    heading: string
    base: string
    newPath: string | null
    tabs: boolean
    onDashboard: boolean
    list: (visibility: VisibilityName | undefined, page: number, perPage: number) => Promise<OffsetPage<SnippetRow>>
  },
): Promise<Html> {
  const tab = scopeOf(w)
  const { page } = listQueryOf(w.params)
  const view: ListPage = { base: options.base, scope: options.tabs ? tab.scope : '', page }
  const [result, ...counted] = await Promise.all([
    options.list(options.tabs ? tab.visibility : undefined, page, SNIPPETS_PER_PAGE),
    ...(options.tabs ? SCOPES.map((scope) => options.list(scope.visibility, 1, 1)) : []),
  ])
  const views = await buildSnippetViews(w.ctx, result.rows)
  const nothing = views.length === 0 && page === 1 && (counted.length === 0 || counted[0].total === 0)
  return html`<div class="header-row">
      <h1>${options.heading}</h1>
      ${options.newPath && !nothing ? html`<div class="actions"><a class="button primary" href="${options.newPath}">New snippet</a></div>` : ''}
    </div>
    ${
      nothing
        ? emptyState(w, options.newPath, options.onDashboard)
        : html`${
            options.tabs
              ? scopeTabs(
                  view,
                  counted.map((entry) => entry.total),
                )
              : ''
          }
          ${
            views.length === 0
              ? html`<p class="empty-state">There are no snippets to show.</p>`
              : html`<ul class="list snippet-list">
                  ${views.map(snippetRow)}
                </ul>`
          }
          ${pager(view, result)}`
    }`
}

async function dashboardSnippets(w: WebRequest) {
  if (!w.ctx.caller.user) return w.redirectToSignIn()
  const body = await listBody(w, {
    heading: 'Snippets',
    base: '/dashboard/snippets',
    newPath: canCreatePersonalSnippet(w.ctx.caller) ? '/-/snippets/new' : null,
    tabs: true,
    onDashboard: true,
    list: (visibility, page, perPage) => listSnippets(w.ctx, 'authored', { visibility }, { page, perPage }),
  })
  return w.render({ title: 'Snippets', breadcrumbs: [{ text: 'Your work', href: '/' }, { text: 'Snippets' }] }, body)
}

async function exploreSnippets(w: WebRequest) {
  const body = await listBody(w, {
    heading: 'Explore snippets',
    base: '/explore/snippets',
    newPath: canCreatePersonalSnippet(w.ctx.caller) ? '/-/snippets/new' : null,
    tabs: false,
    onDashboard: false,
    list: (_visibility, page, perPage) => listSnippets(w.ctx, 'explore', {}, { page, perPage }),
  })
  return w.render({ title: 'Snippets', breadcrumbs: [{ text: 'Explore', href: '/explore' }, { text: 'Snippets' }] }, body)
}

async function projectSnippets(w: WebRequest, loaded: LoadedProject) {
  if (!canReadProjectSnippets(loaded)) return w.notFound()
  const body = await listBody(w, {
    heading: 'Snippets',
    base: projectPath(loaded, '/-/snippets'),
    newPath: w.ctx.caller.user && canCreateProjectSnippet(loaded) ? projectPath(loaded, '/-/snippets/new') : null,
    tabs: true,
    onDashboard: false,
    list: (visibility, page, perPage) => listProjectSnippets(w.ctx, loaded, { page, perPage }, { visibility }),
  })
  return renderProjectPage(w, loaded, { title: 'Snippets', section: 'snippets', crumbs: [{ text: 'Snippets' }] }, body)
}

export function registerSnippetLists(web: WebRouter) {
  web.get('/dashboard/snippets', dashboardSnippets)
  web.get('/explore/snippets', exploreSnippets)
  for (const url of projectPageRoutes('/-/snippets')) web.get(url, projectPage(projectSnippets))
}
