import { html, type Html } from './html.js'

// The parts every list page shares (alerts, errors): status tabs, a search form and a pager, all plain links and
// GET forms so that they work without JavaScript.

/** A form or query value as text ('' when absent or not a string). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** '2026-01-02 03:04:05 UTC' */
export function timeOf(iso: string): Html {
  return html`<time datetime="${iso}">${new Date(iso).toISOString().replace('T', ' ').slice(0, 19)} UTC</time>`
}

/** What a list page shows: its path, the chosen status tab, the search text and the page. */
export interface ListView<S extends string> {
  base: string
  status: S | null
  /** The tab shown when the query names none; it is left out of links. */
  defaultStatus: S | null
  search: string
  page: number
  /** The query parameter naming the tab: `status` unless given (lists sorted by tab use `sort`). */
  statusParam?: string
}

/** The search text and page number of a list page's query; a page that is not a small positive number is page 1. */
export function listQueryOf(params: Record<string, unknown>): { search: string; page: number } {
  const pageText = textOf(params.page)
  return { search: textOf(params.search).trim(), page: /^\d{1,6}$/.test(pageText) && Number(pageText) > 0 ? Number(pageText) : 1 }
}

function linkTo<S extends string>(view: ListView<S>, overrides: { status?: S | null; page?: number }): string {
  const query = new URLSearchParams()
  const status = overrides.status === undefined ? view.status : overrides.status
  if (status && status !== view.defaultStatus) query.set(view.statusParam ?? 'status', status)
  if (view.search) query.set('search', view.search)
  if (overrides.page && overrides.page > 1) query.set('page', String(overrides.page))
  const text = query.toString()
  return text ? `${view.base}?${text}` : view.base
}

/** Tabs, one per status, and the search form; `kind` names their classes and ids (`alert-search`, `alert_search`). */
export function listControls<S extends string>(view: ListView<S>, tabs: { label: string; status: S | null }[], kind: string): Html {
  return html`<nav class="status-tabs">
      ${tabs.map((tab) =>
        tab.status === view.status
          ? html`<strong class="status-tab current">${tab.label}</strong> `
          : html`<a class="status-tab" href="${linkTo(view, { status: tab.status, page: 1 })}">${tab.label}</a> `,
      )}
    </nav>
    <form method="get" action="${view.base}" class="${kind}-search">
      ${view.status && view.status !== view.defaultStatus ? html`<input type="hidden" name="${view.statusParam ?? 'status'}" value="${view.status}" />` : ''}
      <label for="${kind}_search">Search</label>
      <input type="text" id="${kind}_search" name="search" value="${view.search}" />
      <button type="submit">Search</button>
    </form>`
}

/** Previous and next links with 'Page 2 of 5 (93 alerts)'. */
export function pager<S extends string>(view: ListView<S>, perPage: number, total: number, noun: string): Html {
  const pages = Math.max(1, Math.ceil(total / perPage))
  return html`<nav class="pagination">
    ${view.page > 1 ? html`<a rel="prev" href="${linkTo(view, { page: view.page - 1 })}">Prev</a>` : ''}
    <span class="page-info">Page ${view.page} of ${pages} (${total} ${noun})</span>
    ${view.page < pages ? html`<a rel="next" href="${linkTo(view, { page: view.page + 1 })}">Next</a>` : ''}
  </nav>`
}
