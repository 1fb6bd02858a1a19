import type { LabelRow, MilestoneRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import type { IssuableFilters } from '../issuables/index.js'
import { issuableListViewOf, listLink, type IssuableListView } from './shared.js'

// The filters and sort menu of the issue and merge request lists (GL issues/list and merge_requests/list), with
// GitLab's query params: `label_name[]`, `milestone_title`, `author_username`, `assignee_username`,
// `reviewer_username` (merge requests), `search` and `sort` with GitLab's sort names (its `urlSortParams`). A GET form
// of inputs and selects sets them without JavaScript; the tab counts, links and pages keep them.

/** One of GitLab's sort names and the order it stands for. */
export interface SortOption<Order extends string> {
  name: string
  label: string
  orderBy: Order
  sort: 'asc' | 'desc'
}

/** What a list offers to filter and sort by. */
export interface ListFilterSpec<Order extends string> {
  /** Names the form's fields: `issue_search`, `merge_request_search`. */
  kind: 'issue' | 'merge_request'
  /** "issues", "merge requests". */
  noun: string
  /** The sorts the list offers on a state tab (GitLab offers the merged date on the Merged tab only). */
  sortsOf(state: string): readonly SortOption<Order>[]
  defaultSort: string
  /** Merge requests are also filtered by reviewer. */
  byReviewer: boolean
}

/** The filters beyond state, search and labels, as the query names them, and the order chosen. */
interface ListFilters<Order extends string> {
  milestoneTitle: string
  authorUsername: string
  assigneeUsername: string
  reviewerUsername: string
  order: SortOption<Order>
}

/** A list as its query asks for it: state tab, search, labels and page, the other filters and the order. */
export interface FilteredList<Order extends string> {
  view: IssuableListView
  filters: ListFilters<Order>
  spec: ListFilterSpec<Order>
}

function usernameOf(value: unknown): string {
  return textOf(value).trim().replace(/^@/, '')
}

/** The query pairs the list's links keep besides state, search, labels and page. */
function extraOf<Order extends string>(filters: ListFilters<Order>, spec: ListFilterSpec<Order>): [string, string][] {
  const pairs: [string, string][] = []
  if (filters.milestoneTitle) pairs.push(['milestone_title', filters.milestoneTitle])
  if (filters.authorUsername) pairs.push(['author_username', filters.authorUsername])
  if (filters.assigneeUsername) pairs.push(['assignee_username', filters.assigneeUsername])
  if (filters.reviewerUsername) pairs.push(['reviewer_username', filters.reviewerUsername])
  if (filters.order.name !== spec.defaultSort) pairs.push(['sort', filters.order.name])
  return pairs
}

/** Reads a list's query; a sort the state tab does not offer is the default one, as GitLab falls back to it. */
export function filteredListOf<Order extends string>(
  params: Record<string, unknown>,
  base: string,
  states: readonly string[],
  defaultState: string,
  spec: ListFilterSpec<Order>,
): FilteredList<Order> {
  const view = issuableListViewOf(params, base, states, defaultState)
  const sorts = spec.sortsOf(view.state)
  const asked = textOf(params.sort)
  const filters: ListFilters<Order> = {
    milestoneTitle: textOf(params.milestone_title).trim(),
    authorUsername: usernameOf(params.author_username),
    assigneeUsername: usernameOf(params.assignee_username),
    reviewerUsername: spec.byReviewer ? usernameOf(params.reviewer_username) : '',
    order: sorts.find((option) => option.name === asked) ?? sorts.find((option) => option.name === spec.defaultSort)!,
  }
  return { view: { ...view, extra: extraOf(filters, spec) }, filters, spec }
}

/** The finder's filters for one state tab (GL IssuableFinder params). */
export function finderFiltersOf<Order extends string>(
  list: FilteredList<Order>,
  state: string,
): IssuableFilters & { reviewerUsername?: string } {
  const { view, filters } = list
  return {
    state,
    search: view.search || undefined,
    labels: view.labels.length > 0 ? view.labels : undefined,
    milestone: filters.milestoneTitle || undefined,
    authorUsername: filters.authorUsername || undefined,
    assigneeUsernames: filters.assigneeUsername ? [filters.assigneeUsername] : undefined,
    ...(filters.reviewerUsername ? { reviewerUsername: filters.reviewerUsername } : {}),
  }
}

/** Whether anything but the order narrows the list (its empty state then says to widen the search). */
export function isFiltered<Order extends string>(list: FilteredList<Order>): boolean {
  const { view, filters } = list
  return (
    view.search !== '' ||
    view.labels.length > 0 ||
    [filters.milestoneTitle, filters.authorUsername, filters.assigneeUsername, filters.reviewerUsername].some((value) => value !== '')
  )
}

function option(value: string, label: string, selected: boolean): Html {
  return html`<option value="${value}" ${selected ? html`selected` : ''}>${label}</option>`
}

function usernameField(name: string, label: string, value: string): Html {
  return html`<div class="filter-field">
    <label for="filter_${name}">${label}</label>
    <input type="text" id="filter_${name}" name="${name}" value="${value}" placeholder="username" />
  </div>`
}

/** The filter form: a GET form keeping the state tab, every filter a plain input or select. */
function filterForm<Order extends string>(
  list: FilteredList<Order>,
  labels: readonly LabelRow[],
  milestones: readonly MilestoneRow[],
): Html {
  const { view, filters, spec } = list
  const labelTitles = [...new Set([...labels.map((label) => label.title), ...view.labels])]
  const milestoneTitles = [...new Set(milestones.map((milestone) => milestone.title))]
  if (filters.milestoneTitle && !['None', 'Any'].includes(filters.milestoneTitle) && !milestoneTitles.includes(filters.milestoneTitle)) {
    milestoneTitles.push(filters.milestoneTitle)
  }
  return html`<form class="issuable-filters" method="get" action="${view.base}" role="search" aria-label="Filter ${spec.noun}">
    ${view.state !== view.defaultState ? html`<input type="hidden" name="state" value="${view.state}" />` : ''}
    <div class="filter-fields">
      <div class="filter-field filter-search">
        <label for="${spec.kind}_search">Search</label>
        <input type="search" id="${spec.kind}_search" name="search" value="${view.search}" placeholder="Search or filter results&hellip;" />
      </div>
      ${usernameField('author_username', 'Author', filters.authorUsername)}
      ${usernameField('assignee_username', 'Assignee', filters.assigneeUsername)}
      ${spec.byReviewer ? usernameField('reviewer_username', 'Reviewer', filters.reviewerUsername) : ''}
      <div class="filter-field">
        <label for="filter_milestone_title">Milestone</label>
        <select id="filter_milestone_title" name="milestone_title">
          ${option('', 'All', filters.milestoneTitle === '')} ${option('None', 'No milestone', filters.milestoneTitle === 'None')}
          ${option('Any', 'Any milestone', filters.milestoneTitle === 'Any')}
          ${milestoneTitles.map((title) => option(title, title, filters.milestoneTitle === title))}
        </select>
      </div>
      <div class="filter-field">
        <label for="filter_label_name">Labels</label>
        <select id="filter_label_name" name="label_name[]" multiple size="3">
          ${labelTitles.map((title) => option(title, title, view.labels.includes(title)))}
        </select>
      </div>
      <div class="filter-field">
        <label for="filter_sort">Sort by</label>
        <select id="filter_sort" name="sort">
          ${spec.sortsOf(view.state).map((sort) => option(sort.name, sort.label, filters.order.name === sort.name))}
        </select>
      </div>
    </div>
    <div class="button-row">
      <button type="submit" class="primary">Filter</button>
      <a class="button" href="${view.base}${view.state === view.defaultState ? '' : `?state=${view.state}`}">Clear</a>
    </div>
  </form>`
}

/** The filters in use, each with a link to the list without it. */
function activeFilters<Order extends string>(list: FilteredList<Order>): Html {
  const { view, filters } = list
  const without = (name: string) => listLink({ ...view, extra: (view.extra ?? []).filter(([key]) => key !== name) }, {})
  const tokens: { kind: string; value: string; href: string }[] = view.labels.map((title) => ({
    kind: 'Label',
    value: title,
    href: listLink(view, { labels: view.labels.filter((other) => other !== title) }),
  }))
  if (filters.milestoneTitle) tokens.push({ kind: 'Milestone', value: filters.milestoneTitle, href: without('milestone_title') })
  if (filters.authorUsername) tokens.push({ kind: 'Author', value: `@${filters.authorUsername}`, href: without('author_username') })
  if (filters.assigneeUsername) tokens.push({ kind: 'Assignee', value: `@${filters.assigneeUsername}`, href: without('assignee_username') })
  if (filters.reviewerUsername) tokens.push({ kind: 'Reviewer', value: `@${filters.reviewerUsername}`, href: without('reviewer_username') })
  if (tokens.length === 0) return html``
  return html`<p class="active-filters">
    ${tokens.map(
      (token) =>
        html`<span class="filter-token"
          >${token.kind}: ${token.value}
          <a href="${token.href}" aria-label="Remove ${token.kind.toLowerCase()} filter ${token.value}">×</a></span
        > `,
    )}
  </p>`
}

/** The filter form and, under it, the filters in use. */
export function listFilters<Order extends string>(
  list: FilteredList<Order>,
  labels: readonly LabelRow[],
  milestones: readonly MilestoneRow[],
): Html {
  return html`${filterForm(list, labels, milestones)} ${activeFilters(list)}`
}
