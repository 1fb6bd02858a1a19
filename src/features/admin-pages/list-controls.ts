import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'

// The admin lists' tabs, search and pages, as plain links and a GET form (GitLab's parameter names per list).

export interface AdminListView {
  base: string
  /** The query parameter naming the tab, and the tab chosen (null: the first, unnamed one). */
  tabParam: string
  tab: string | null
  searchParam: string
  search: string
  page: number
}

/** The list's state from the query: a tab among `tabs`, the search text and a page (1 unless a small positive number). */
export function adminListViewOf(
  params: Record<string, unknown>,
  base: string,
  tabParam: string,
  tabs: readonly string[],
  searchParam: string,
): AdminListView {
  const tabText = textOf(params[tabParam])
  const pageText = textOf(params.page)
  return {
    base,
    tabParam,
    tab: tabs.includes(tabText) ? tabText : null,
    searchParam,
    search: textOf(params[searchParam]).trim(),
    page: /^\d{1,6}$/.test(pageText) && Number(pageText) > 0 ? Number(pageText) : 1,
  }
}

function linkTo(view: AdminListView, overrides: { tab?: string | null; page?: number }): string {
  const query = new URLSearchParams()
  const tab = overrides.tab === undefined ? view.tab : overrides.tab
  if (tab) query.set(view.tabParam, tab)
  if (view.search) query.set(view.searchParam, view.search)
  const page = overrides.page ?? view.page
  if (page > 1) query.set('page', String(page))
  const text = query.toString()
  return text ? `${view.base}?${text}` : view.base
}

/** The tabs, then the search form; `label` names what is searched ("Search users"). */
export function listTabsAndSearch(view: AdminListView, tabs: { label: string; value: string | null }[], label: string): Html {
  return html`<nav class="tabs" aria-label="Filter">
      ${tabs.map(
        (tab) =>
          html`<a href="${linkTo(view, { tab: tab.value, page: 1 })}" ${tab.value === view.tab ? html`aria-current="page"` : ''}>${tab.label}</a>`,
      )}
    </nav>
    <form method="get" action="${view.base}" class="list-search" role="search">
      ${view.tab ? html`<input type="hidden" name="${view.tabParam}" value="${view.tab}" />` : ''}
      <label for="admin_search" class="visually-hidden">${label}</label>
      <input type="search" id="admin_search" name="${view.searchParam}" value="${view.search}" placeholder="${label}" />
      <button type="submit">Search</button>
    </form>`
}

/** Previous and next links; the total when it was counted. `noun` is plural ("users"). */
export function listPager(view: AdminListView, page: { total: number | null; hasNext: boolean; perPage: number }, noun: string): Html {
  const pages = page.total === null ? null : Math.max(1, Math.ceil(page.total / page.perPage))
  if (view.page === 1 && !page.hasNext) {
    const total = page.total ?? 0
    return html`<p class="muted list-total">${total} ${total === 1 ? noun.replace(/s$/, '') : noun}</p>`
  }
  return html`<nav class="pagination" aria-label="Pages">
    ${view.page > 1 ? html`<a rel="prev" href="${linkTo(view, { page: view.page - 1 })}">Prev</a>` : ''}
    <span class="page-info">Page ${view.page}${pages === null ? '' : ` of ${pages}`}${page.total === null ? '' : ` (${page.total} ${noun})`}</span>
    ${page.hasNext ? html`<a rel="next" href="${linkTo(view, { page: view.page + 1 })}">Next</a>` : ''}
  </nav>`
}
