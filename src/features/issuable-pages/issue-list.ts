import { html } from '../../web/html.js'
import { canCreateIssue, type LoadedProject } from '../access/index.js'
import { issueViewsOf, listProjectIssues, type ListIssuesInput } from '../issues/index.js'
import { projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest } from '../sessions/index.js'
import { labelChoices, milestoneChoices } from './choices.js'
import { issueRow } from './issues.js'
import {
  filteredListOf,
  finderFiltersOf,
  isFiltered,
  listFilters,
  type FilteredList,
  type ListFilterSpec,
  type SortOption,
} from './list-filters.js'
import { listPager, stateTabs } from './shared.js'

// The project's issue list (GL Projects::IssuesController#index) with the filters and sort menu the merge request list
// shares (list-filters.ts).

const ISSUES_PER_PAGE = 20
const ISSUE_STATES = ['opened', 'closed', 'all'] as const

/** GitLab's sort names (the issue list's `urlSortParams`) and the API order each stands for. */
const SORTS: SortOption<ListIssuesInput['orderBy']>[] = [
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

const ISSUE_FILTERS: ListFilterSpec<ListIssuesInput['orderBy']> = {
  kind: 'issue',
  noun: 'issues',
  sortsOf: () => SORTS,
  defaultSort: 'created_date',
  byReviewer: false,
}

function listInput(list: FilteredList<ListIssuesInput['orderBy']>, state: string, perPage: number, page: number): ListIssuesInput {
  const { order } = list.filters
  return {
    filters: finderFiltersOf(list, state),
    orderBy: order.orderBy,
    sort: order.sort,
    pagination: { kind: 'offset', page, perPage },
  }
}

/** GET /<project>/-/issues. */
export async function renderIssueList(w: WebRequest, loaded: LoadedProject) {
  const base = projectPath(loaded, '/-/issues')
  const list = filteredListOf(w.params, base, ISSUE_STATES, 'opened', ISSUE_FILTERS)
  const { view } = list
  const count = async (state: string) => {
    const result = await listProjectIssues(w.ctx, loaded, listInput(list, state, 1, 1))
    return result.kind === 'offset' ? result.page.total : null
  }
  const [result, labels, milestones, ...counts] = await Promise.all([
    listProjectIssues(w.ctx, loaded, listInput(list, view.state, ISSUES_PER_PAGE, view.page)),
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
  const mayCreate = canCreateIssue(loaded.access, loaded.project)
  const body = html`<div class="header-row">
      <h1>Issues</h1>
      ${mayCreate ? html`<div class="actions"><a class="button primary" href="${base}/new">New issue</a></div>` : ''}
    </div>
    ${stateTabs(view, tabs, 'Issue states')} ${listFilters(list, labels, milestones)}
    ${
      views.length === 0
        ? html`<div class="empty-state no-issues">
            ${
              isFiltered(list)
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
