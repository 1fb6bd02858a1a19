import { html } from '../../web/html.js'
import { listQueryOf } from '../../web/list-page.js'
import { canReadMergeRequests, canReadProjectIssues, type LoadedProject } from '../access/index.js'
import { listLabels } from '../labels/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { labelBadge, labelIssuesPath } from './shared.js'

// The project's labels (GL Projects::LabelsController#index): its own and its groups', with what each marks.

const LABELS_PER_PAGE = 50

async function renderLabels(w: WebRequest, loaded: LoadedProject) {
  const base = projectPath(loaded, '/-/labels')
  const { search, page } = listQueryOf(w.params)
  const { page: result, views } = await listLabels(
    w.ctx,
    { kind: 'project', loaded },
    { includeAncestorGroups: true, withCounts: true, search: search || undefined, page, perPage: LABELS_PER_PAGE },
  )
  const issues = canReadProjectIssues(loaded.access, loaded.project)
  const mergeRequests = canReadMergeRequests(loaded.access, loaded.project)
  const link = (to: number) => {
    const query = new URLSearchParams()
    if (search) query.set('search', search)
    if (to > 1) query.set('page', String(to))
    return query.size > 0 ? `${base}?${query}` : base
  }
  const body = html`<h1>Labels</h1>
    <p class="help">Labels can be applied to issues and merge requests. Group labels are shared by every project in the group.</p>
    <form class="list-search" method="get" action="${base}" role="search">
      <label class="visually-hidden" for="label_search">Search labels</label>
      <input type="search" id="label_search" name="search" value="${search}" placeholder="Filter labels" />
      <button type="submit">Search</button>
    </form>
    ${
      views.length === 0
        ? html`<div class="empty-state no-labels">
            <p>${search ? 'No labels match your search.' : 'This project has no labels yet.'}</p>
            <p>Labels are created through the API (POST /projects/:id/labels) or when an issue names a new one.</p>
          </div>`
        : html`<ul class="list label-list">
            ${views.map(({ label, counts }) => {
              const mergeRequestsPath = projectPath(loaded, `/-/merge_requests?label_name[]=${encodeURIComponent(label.title)}`)
              return html`<li class="label-row" id="label_${label.id}">
                <div class="grow">
                  ${labelBadge(label, null)}
                  <span class="badge label-scope">${label.project_id === null ? 'Group label' : 'Project label'}</span>
                  ${label.description ? html`<div class="meta label-description">${label.description}</div>` : ''}
                </div>
                <div class="meta label-links">
                  ${issues ? html`<a href="${labelIssuesPath(loaded, label.title)}">${counts?.openIssues ?? 0} open issues</a>` : ''}
                  ${mergeRequests ? html` · <a href="${mergeRequestsPath}">${counts?.openMergeRequests ?? 0} open merge requests</a>` : ''}
                </div>
              </li>`
            })}
          </ul>`
    }
    ${
      page > 1 || result.hasNext
        ? html`<nav class="pagination" aria-label="Pages">
            ${page > 1 ? html`<a class="button" rel="prev" href="${link(page - 1)}">Previous</a>` : ''}
            <span class="page-info">Page ${page}</span>
            ${result.hasNext ? html`<a class="button" rel="next" href="${link(page + 1)}">Next</a>` : ''}
          </nav>`
        : ''
    }`
  return renderProjectPage(w, loaded, { title: 'Labels', section: null, crumbs: [{ text: 'Labels', href: base }] }, body)
}

export function registerLabelPages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/labels')) web.get(url, projectPage(renderLabels))
}
