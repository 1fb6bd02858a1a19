import type { LabelRow, NamespaceRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { listQueryOf } from '../../web/list-page.js'
import { canReadMergeRequests, canReadProjectIssues, findNamespacesByIds, type LoadedProject } from '../access/index.js'
import { canAdminLabels, listLabelsByPriority, type LabelView } from '../labels/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { labelsAvailable, labelsPath, registerLabelForms } from './label-forms.js'
import { labelBadge, labelIssuesPath } from './shared.js'

// The project's labels (GL Projects::LabelsController#index): its prioritised labels first, in their order, then the
// others by title; its own and its groups', with what each marks. Reporters and up manage them from here.

const LABELS_PER_PAGE = 50
/** GitLab lists every prioritised label on the first page; a page shows this many at most. */
const PRIORITIZED_SHOWN = 100

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`
}

interface RowContext {
  loaded: LoadedProject
  token: string | null
  canAdmin: boolean
  signedIn: boolean
  /** The prioritised labels' ids in their order, for the forms that change it. */
  order: number[]
  groups: Map<number, NamespaceRow>
}

/** A form of hidden label_ids[] posting the project's priorities in a new order (GL set_priorities). */
function priorityForm(context: RowContext, order: number[], text: string, label: string): Html {
  return html`<form method="post" action="${labelsPath(context.loaded, '/set_priorities')}" class="inline">
    ${csrfField(context.token ?? '')} ${order.map((id) => html`<input type="hidden" name="label_ids[]" value="${id}" />`)}
    <button type="submit" class="small" aria-label="${label}">${text}</button>
  </form>`
}

function priorityActions(context: RowContext, label: LabelRow, prioritized: boolean): Html {
  if (!prioritized) return priorityForm(context, [...context.order, label.id], 'Prioritize', `Prioritize label ${label.title}`)
  const at = context.order.indexOf(label.id)
  const moved = (to: number) => {
    const order = context.order.filter((id) => id !== label.id)
    order.splice(to, 0, label.id)
    return order
  }
  return html`<form method="post" action="${labelsPath(context.loaded, `/${label.id}/remove_priority`)}" class="inline">
      ${csrfField(context.token ?? '')}
      <button type="submit" class="small" aria-label="Remove priority of label ${label.title}">Remove priority</button>
    </form>
    ${at > 0 ? priorityForm(context, moved(at - 1), 'Move up', `Move label ${label.title} up`) : ''}
    ${at >= 0 && at < context.order.length - 1 ? priorityForm(context, moved(at + 1), 'Move down', `Move label ${label.title} down`) : ''}`
}

/** Delete, confirmed in a disclosure first (GitLab asks in a modal): works without JavaScript. */
function deleteControl(context: RowContext, label: LabelRow): Html {
  return html`<details class="menu confirm-menu">
    <summary class="button small danger-outline" aria-label="Delete label ${label.title}">Delete</summary>
    <div class="menu-items confirm-box" role="group" aria-label="Delete label: ${label.title}">
      <p><strong>${label.title}</strong> will be permanently deleted from ${context.loaded.project.name}. This cannot be undone.</p>
      <form method="post" action="${labelsPath(context.loaded, `/${label.id}`)}">
        ${csrfField(context.token ?? '')}
        <input type="hidden" name="_method" value="delete" />
        <button type="submit" class="danger">Delete label</button>
      </form>
    </div>
  </details>`
}

function labelRow(context: RowContext, view: LabelView, prioritized: boolean): Html {
  const { loaded } = context
  const { label, counts } = view
  const isProjectLabel = label.project_id !== null
  const group = label.group_id === null ? undefined : context.groups.get(label.group_id)
  const issues = canReadProjectIssues(loaded.access, loaded.project)
  const mergeRequests = canReadMergeRequests(loaded.access, loaded.project)
  const mergeRequestsPath = projectPath(loaded, `/-/merge_requests?label_name[]=${encodeURIComponent(label.title)}`)
  const links = [
    issues ? html`<a href="${labelIssuesPath(loaded, label.title)}">${plural(counts?.openIssues ?? 0, 'open issue')}</a>` : '',
    mergeRequests ? html`<a href="${mergeRequestsPath}">${plural(counts?.openMergeRequests ?? 0, 'open merge request')}</a>` : '',
  ].filter((link) => link !== '')
  return html`<li class="label-row" id="label_${label.id}">
    <div class="grow">
      <div class="label-name">
        ${labelBadge(label, null)}
        ${
          isProjectLabel
            ? html`<span class="badge label-scope">Project label</span>`
            : html`<span class="badge label-scope">Group label</span>
                ${group ? html`<a class="label-group" href="/groups/${group.full_path}">${group.name}</a>` : ''}`
        }
        ${prioritized ? html`<span class="badge prioritized-badge">Prioritized label</span>` : ''}
      </div>
      ${label.description ? html`<div class="meta label-description">${label.description}</div>` : ''}
      <div class="meta label-links">${links.map((link, index) => html`${index > 0 ? html` &middot; ` : ''}${link}`)}</div>
    </div>
    <div class="row-actions label-actions">
      ${context.canAdmin ? priorityActions(context, label, prioritized) : ''}
      ${context.canAdmin && isProjectLabel ? html`<a class="button small" href="${labelsPath(loaded, `/${label.id}/edit`)}" aria-label="Edit label ${label.title}">Edit</a>` : ''}
      ${
        context.signedIn
          ? html`<form method="post" action="${labelsPath(loaded, `/${label.id}/toggle_subscription`)}" class="inline">
              ${csrfField(context.token ?? '')}
              <button type="submit" class="small" aria-label="${view.subscribed ? 'Unsubscribe from' : 'Subscribe to'} label ${label.title}">
                ${view.subscribed ? 'Unsubscribe' : 'Subscribe'}
              </button>
            </form>`
          : ''
      }
      ${context.canAdmin && isProjectLabel ? deleteControl(context, label) : ''}
    </div>
  </li>`
}

async function renderLabels(w: WebRequest, loaded: LoadedProject) {
  if (!labelsAvailable(loaded)) return w.notFound()
  const base = labelsPath(loaded)
  const { search, page } = listQueryOf(w.params)
  const listed = (prioritized: boolean, pageNumber: number, perPage: number) =>
    listLabelsByPriority(w.ctx, loaded, { prioritized, search: search || undefined, page: pageNumber, perPage })
  // The order forms need every prioritised label, whatever the search shows.
  const [prioritized, others, order] = await Promise.all([
    listed(true, 1, PRIORITIZED_SHOWN),
    listed(false, page, LABELS_PER_PAGE),
    search ? listLabelsByPriority(w.ctx, loaded, { prioritized: true, page: 1, perPage: PRIORITIZED_SHOWN }) : null,
  ])
  const groupIds = [
    ...new Set([...prioritized.views, ...others.views].flatMap(({ label }) => (label.group_id === null ? [] : [label.group_id]))),
  ]
  const canAdmin = canAdminLabels(loaded.access)
  const signedIn = w.ctx.caller.user !== null
  const context: RowContext = {
    loaded,
    token: canAdmin || signedIn ? await w.csrfToken() : null,
    canAdmin,
    signedIn,
    order: (order ?? prioritized).views.map(({ label }) => label.id),
    groups: new Map((await findNamespacesByIds(w.ctx.db, groupIds)).map((group) => [group.id, group])),
  }
  const link = (to: number) => {
    const query = new URLSearchParams()
    if (search) query.set('search', search)
    if (to > 1) query.set('page', String(to))
    return query.size > 0 ? `${base}?${query}` : base
  }
  const nothing = prioritized.views.length === 0 && others.views.length === 0 && page === 1
  const firstPage = page === 1
  const body = html`<div class="header-row">
      <h1>Labels</h1>
      ${canAdmin && !(nothing && !search) ? html`<div class="actions"><a class="button primary" href="${labelsPath(loaded, '/new')}">New label</a></div>` : ''}
    </div>
    ${
      nothing && !search
        ? html`<div class="empty-state no-labels">
            <p><strong>Labels can be applied to issues and merge requests to categorize them.</strong></p>
            <p>You can also star a label to make it a priority label.</p>
            ${canAdmin ? html`<p><a class="button primary" href="${labelsPath(loaded, '/new')}">New label</a></p>` : ''}
          </div>`
        : html`<form class="list-search" method="get" action="${base}" role="search">
              <label class="visually-hidden" for="label_search">Search labels</label>
              <input type="search" id="label_search" name="search" value="${search}" placeholder="Filter labels" />
              <button type="submit">Search</button>
            </form>
            ${canAdmin && !search ? html`<p class="help">Labels can be applied to issues and merge requests. Star a label to make it a priority label.</p>` : ''}
            ${
              firstPage
                ? html`<section class="label-section prioritized-labels" aria-labelledby="prioritized-labels-heading">
                    <h2 id="prioritized-labels-heading">Prioritized labels</h2>
                    ${
                      prioritized.views.length > 0
                        ? html`<ul class="list label-list">
                            ${prioritized.views.map((view) => labelRow(context, view, true))}
                          </ul>`
                        : html`<p class="empty-state no-prioritized-labels">
                            ${search ? 'No prioritized labels with such name or description' : 'Star labels to start sorting by priority'}
                          </p>`
                    }
                  </section>`
                : ''
            }
            ${
              others.views.length === 0 && !search && firstPage
                ? ''
                : html`<section class="label-section other-labels" aria-labelledby="other-labels-heading">
              <h2 id="other-labels-heading">Other labels</h2>
              ${
                others.views.length > 0
                  ? html`<ul class="list label-list">
                      ${others.views.map((view) => labelRow(context, view, false))}
                    </ul>`
                  : html`<p class="empty-state no-labels">
                      ${search ? 'No other labels with such name or description' : 'No other labels on this page.'}
                    </p>`
              }
              ${
                page > 1 || others.page.hasNext
                  ? html`<nav class="pagination" aria-label="Pages">
                      ${page > 1 ? html`<a class="button" rel="prev" href="${link(page - 1)}">Previous</a>` : ''}
                      <span class="page-info">Page ${page}</span>
                      ${others.page.hasNext ? html`<a class="button" rel="next" href="${link(page + 1)}">Next</a>` : ''}
                    </nav>`
                  : ''
              }
            </section>`
            }`
    }`
  return renderProjectPage(w, loaded, { title: 'Labels', section: 'labels', crumbs: [{ text: 'Labels', href: base }] }, body)
}

export function registerLabelPages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/labels')) web.get(url, projectPage(renderLabels))
  registerLabelForms(web)
}
