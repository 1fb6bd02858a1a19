import type { LabelRow, MilestoneRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canCreateIssue, type LoadedProject } from '../access/index.js'
import { issueViewsOf, listProjectIssues, type ListIssuesInput } from '../issues/index.js'
import { projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest } from '../sessions/index.js'
import { labelChoices, milestoneChoices } from './choices.js'
import { issueRow } from './issues.js'
import { issuableListViewOf, listLink, listPager, stateTabs, type IssuableListView } from './shared.js'

// The project's issue list (GL Projects::IssuesController#index) with GitLab's filters as query params: state,
// `label_name[]`, `milestone_title`, `assignee_username`, `author_username`, `search` and `sort` with GitLab's sort
// names; a GET form of inputs and selects sets them without JavaScript.

const ISSUES_PER_PAGE = 20
const ISSUE_STATES = ['opened', 'closed', 'all'] as const

/** GitLab's sort names (the issue list's `urlSortParams`) and the API order each stands for. */
const SORTS: { name: string; label: string; orderBy: ListIssuesInput['orderBy']; sort: 'asc' | 'desc' }[] = [
  { name: 'created_date', label: 'Created date', orderBy: 'created_at', sort: 'desc' },
  { name: 'created_asc', label: 'Created date, oldest', orderBy: 'created_at', sort: 'asc' },
  { name: 'updated_desc', label: 'Updated date', orderBy: 'updated_at', sort: 'desc' },
  { name: 'updated_asc', label: 'Updated date, oldest', orderBy: 'updated_at', sort: 'asc' },
  { name: 'priority', label: 'Priority', orderBy: 'priority', sort: 'asc' },
  { name: 'label_priority', label: 'Label priority', orderBy: 'label_priority', sort: 'asc' },
  { name: 'milestone', label: 'Milestone due date', orderBy: 'milestone_due', sort: 'asc' },
  { name: 'milestone_due_desc', label: 'Milestone due date, latest', orderBy: 'milestone_due', sort: 'desc' },
  { name: 'due_date', label: 'Due date', orderBy: 'due_date', sort: 'asc' },
  { name: 'due_date_desc', label: 'Due date, latest', orderBy: 'due_date', sort: 'desc' },
  { name: 'popularity', label: 'Popularity', orderBy: 'popularity', sort: 'desc' },
  { name: 'title_asc', label: 'Title', orderBy: 'title', sort: 'asc' },
  { name: 'title_desc', label: 'Title, Z to A', orderBy: 'title', sort: 'desc' },
]
const DEFAULT_SORT = 'created_date'

/** The filters beyond state, search and labels, as the query names them. */
interface IssueFilters {
  milestoneTitle: string
  authorUsername: string
  assigneeUsername: string
  sort: string
}

function filtersOf(params: Record<string, unknown>): IssueFilters {
  const sort = textOf(params.sort)
  return {
    milestoneTitle: textOf(params.milestone_title).trim(),
    authorUsername: textOf(params.author_username).trim().replace(/^@/, ''),
    assigneeUsername: textOf(params.assignee_username).trim().replace(/^@/, ''),
    sort: SORTS.some((option) => option.name === sort) ? sort : DEFAULT_SORT,
  }
}

/** The query pairs the list's links keep besides state, search, labels and page. */
function extraOf(filters: IssueFilters): [string, string][] {
  const pairs: [string, string][] = []
  if (filters.milestoneTitle) pairs.push(['milestone_title', filters.milestoneTitle])
  if (filters.authorUsername) pairs.push(['author_username', filters.authorUsername])
  if (filters.assigneeUsername) pairs.push(['assignee_username', filters.assigneeUsername])
  if (filters.sort !== DEFAULT_SORT) pairs.push(['sort', filters.sort])
  return pairs
}

function listInput(view: IssuableListView, filters: IssueFilters, state: string, perPage: number, page: number): ListIssuesInput {
  const order = SORTS.find((option) => option.name === filters.sort)!
  return {
    filters: {
      state,
      search: view.search || undefined,
      labels: view.labels.length > 0 ? view.labels : undefined,
      milestone: filters.milestoneTitle || undefined,
      authorUsername: filters.authorUsername || undefined,
      assigneeUsernames: filters.assigneeUsername ? [filters.assigneeUsername] : undefined,
    },
    orderBy: order.orderBy,
    sort: order.sort,
    pagination: { kind: 'offset', page, perPage },
  }
}

function option(value: string, label: string, selected: boolean): Html {
  return html`<option value="${value}" ${selected ? html`selected` : ''}>${label}</option>`
}

/** The filter form: a GET form keeping the state tab, every filter a plain input or select. */
function filterForm(view: IssuableListView, filters: IssueFilters, labels: readonly LabelRow[], milestones: readonly MilestoneRow[]): Html {
  const labelTitles = [...new Set([...labels.map((label) => label.title), ...view.labels])]
  const milestoneTitles = [...new Set(milestones.map((milestone) => milestone.title))]
  if (filters.milestoneTitle && !['None', 'Any'].includes(filters.milestoneTitle) && !milestoneTitles.includes(filters.milestoneTitle)) {
    milestoneTitles.push(filters.milestoneTitle)
  }
  return html`<form class="issue-filters" method="get" action="${view.base}" role="search" aria-label="Filter issues">
    ${view.state !== view.defaultState ? html`<input type="hidden" name="state" value="${view.state}" />` : ''}
    <div class="filter-fields">
      <div class="filter-field filter-search">
        <label for="issue_search">Search</label>
        <input type="search" id="issue_search" name="search" value="${view.search}" placeholder="Search or filter results&hellip;" />
      </div>
      <div class="filter-field">
        <label for="filter_author_username">Author</label>
        <input type="text" id="filter_author_username" name="author_username" value="${filters.authorUsername}" placeholder="username" />
      </div>
      <div class="filter-field">
        <label for="filter_assignee_username">Assignee</label>
        <input type="text" id="filter_assignee_username" name="assignee_username" value="${filters.assigneeUsername}" placeholder="username" />
      </div>
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
          ${SORTS.map((sort) => option(sort.name, sort.label, filters.sort === sort.name))}
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
function activeFilters(view: IssuableListView, filters: IssueFilters): Html {
  const without = (name: string) => listLink({ ...view, extra: (view.extra ?? []).filter(([key]) => key !== name) }, {})
  const tokens: { kind: string; value: string; href: string }[] = [
    ...view.labels.map((title) => ({
      kind: 'Label',
      value: title,
      href: listLink(view, { labels: view.labels.filter((other) => other !== title) }),
    })),
  ]
  if (filters.milestoneTitle) tokens.push({ kind: 'Milestone', value: filters.milestoneTitle, href: without('milestone_title') })
  if (filters.authorUsername) tokens.push({ kind: 'Author', value: `@${filters.authorUsername}`, href: without('author_username') })
  if (filters.assigneeUsername) tokens.push({ kind: 'Assignee', value: `@${filters.assigneeUsername}`, href: without('assignee_username') })
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

/** GET /<project>/-/issues. */
export async function renderIssueList(w: WebRequest, loaded: LoadedProject) {
  const base = projectPath(loaded, '/-/issues')
  const filters = filtersOf(w.params)
  const view: IssuableListView = { ...issuableListViewOf(w.params, base, ISSUE_STATES, 'opened'), extra: extraOf(filters) }
  const count = async (state: string) => {
    const result = await listProjectIssues(w.ctx, loaded, listInput(view, filters, state, 1, 1))
    return result.kind === 'offset' ? result.page.total : null
  }
  const [result, labels, milestones, ...counts] = await Promise.all([
    listProjectIssues(w.ctx, loaded, listInput(view, filters, view.state, ISSUES_PER_PAGE, view.page)),
    labelChoices(w.ctx, loaded),
    milestoneChoices(w.ctx, loaded),
    ...ISSUE_STATES.map(count),
  ])
  const page = result.kind === 'offset' ? result.page : { rows: result.page.rows, total: null, hasNext: false }
  const views = await issueViewsOf(w.ctx, page.rows)
  const tabs = [
    { state: 'opened', label: 'Open', count: counts[0] },
    { state: 'closed', label: 'Closed', count: counts[1] },
    { state: 'all', label: 'All', count: counts[2] },
  ]
  const filtered = view.search !== '' || view.labels.length > 0 || extraOf({ ...filters, sort: DEFAULT_SORT }).length > 0
  const mayCreate = canCreateIssue(loaded.access, loaded.project)
  const body = html`<div class="header-row">
      <h1>Issues</h1>
      ${mayCreate ? html`<div class="actions"><a class="button primary" href="${base}/new">New issue</a></div>` : ''}
    </div>
    ${stateTabs(view, tabs, 'Issue states')} ${filterForm(view, filters, labels, milestones)} ${activeFilters(view, filters)}
    ${
      views.length === 0
        ? html`<div class="empty-state no-issues">
            ${
              filtered
                ? html`<p><strong>Sorry, your filter produced no results</strong></p>
                    <p>To widen your search, change or remove filters above</p>`
                : html`<p><strong>There are no ${view.state === 'closed' ? 'closed' : 'open'} issues</strong></p>
                    ${mayCreate ? html`<p>To keep this project going, <a href="${base}/new">create a new issue</a></p>` : ''}`
            }
          </div>`
        : html`<ul class="list issuable-list">
            ${views.map((issueView) => issueRow(loaded, issueView))}
          </ul>`
    }
    ${listPager(view, ISSUES_PER_PAGE, page.total, page.hasNext)}`
  return renderProjectPage(w, loaded, { title: 'Issues', section: 'issues', crumbs: [{ text: 'Issues', href: base }] }, body)
}
