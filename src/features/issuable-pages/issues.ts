import { NotFound } from '../../core/errors.js'
import type { IssueRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canReadProjectIssues, findIssue, type LoadedProject } from '../access/index.js'
import { issueViewsOf, listProjectIssues, type IssueView, type ListIssuesInput } from '../issues/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import {
  avatar,
  descriptionOf,
  discussionOf,
  iidOf,
  issuableListViewOf,
  labelBadge,
  labelIssuesPath,
  listPager,
  loadDiscussion,
  searchForm,
  stateBadge,
  stateTabs,
  userLink,
  type IssuableListView,
  metadataFields,
  sidebarField,
} from './shared.js'

// The project's issue list and an issue's page (GL Projects::IssuesController#index and #show).

const ISSUES_PER_PAGE = 20
const ISSUE_STATES = ['opened', 'closed', 'all'] as const

/** Where an issue's page is: incidents live under issues/incident, as the API's web_url says (GL Gitlab::UrlBuilder). */
export function issuePath(loaded: LoadedProject, issue: Pick<IssueRow, 'iid' | 'issue_type'>): string {
  return projectPath(loaded, `/-/issues/${issue.issue_type === 'incident' ? 'incident/' : ''}${issue.iid}`)
}

function listInput(view: IssuableListView, state: string, perPage: number, page: number): ListIssuesInput {
  return {
    filters: {
      state,
      search: view.search || undefined,
      labels: view.labels.length > 0 ? view.labels : undefined,
    },
    orderBy: 'created_at',
    sort: 'desc',
    pagination: { kind: 'offset', page, perPage },
  }
}

async function countIssues(w: WebRequest, loaded: LoadedProject, view: IssuableListView, state: string): Promise<number | null> {
  const result = await listProjectIssues(w.ctx, loaded, listInput(view, state, 1, 1))
  return result.kind === 'offset' ? result.page.total : null
}

/** One row of an issue list: its title, labels, who opened it when, its milestone, due date and assignees. */
export function issueRow(loaded: LoadedProject, view: IssueView): Html {
  const { issue } = view
  return html`<li class="issuable-row issue-row" id="issue_${issue.iid}">
    <div class="grow">
      <a class="title" href="${issuePath(loaded, issue)}">${issue.title}</a>
      ${issue.confidential === 1 ? html`<span class="badge confidential-badge">Confidential</span>` : ''}
      ${view.labels.map((label) => labelBadge(label, labelIssuesPath(loaded, label.title)))}
      <div class="meta">
        #${issue.iid} · opened ${timeOf(issue.created_at)} by ${view.author.name}
        ${view.milestone ? html` · <span class="milestone-ref">${view.milestone.title}</span>` : ''}
        ${issue.due_date ? html` · due <time datetime="${issue.due_date}">${issue.due_date}</time>` : ''}
      </div>
    </div>
    <div class="meta row-side">
      ${issue.state === 'closed' ? stateBadge('closed') : ''}
      ${view.assignees.length > 0 ? html`<span class="assignee-avatars">${view.assignees.map((user) => avatar(user))}</span>` : ''}
      <span class="comments-count" title="Comments">${view.userNotesCount} ${view.userNotesCount === 1 ? 'comment' : 'comments'}</span>
    </div>
  </li>`
}

async function renderIssueList(w: WebRequest, loaded: LoadedProject) {
  const base = projectPath(loaded, '/-/issues')
  const view = issuableListViewOf(w.params, base, ISSUE_STATES, 'opened')
  const [result, ...counts] = await Promise.all([
    listProjectIssues(w.ctx, loaded, listInput(view, view.state, ISSUES_PER_PAGE, view.page)),
    ...ISSUE_STATES.map((state) => countIssues(w, loaded, view, state)),
  ])
  const page = result.kind === 'offset' ? result.page : { rows: result.page.rows, total: null, hasNext: false }
  const views = await issueViewsOf(w.ctx, page.rows)
  const tabs = [
    { state: 'opened', label: 'Open', count: counts[0] },
    { state: 'closed', label: 'Closed', count: counts[1] },
    { state: 'all', label: 'All', count: counts[2] },
  ]
  const filtered = view.search !== '' || view.labels.length > 0
  const body = html`<div class="header-row">
      <h1>Issues</h1>
    </div>
    ${stateTabs(view, tabs, 'Issue states')} ${searchForm(view, 'issue', 'Search or filter results…')}
    ${
      views.length === 0
        ? html`<div class="empty-state no-issues">
            <p>${filtered ? 'No issues match your search or filter.' : `There are no ${view.state === 'all' ? '' : view.state === 'opened' ? 'open ' : 'closed '}issues.`}</p>
            <p>Issues track work and bugs; anyone who can see this project can open one through the API.</p>
          </div>`
        : html`<ul class="list issuable-list">
            ${views.map((issueView) => issueRow(loaded, issueView))}
          </ul>`
    }
    ${listPager(view, ISSUES_PER_PAGE, page.total, page.hasNext)}`
  return renderProjectPage(w, loaded, { title: 'Issues', section: 'issues', crumbs: [{ text: 'Issues', href: base }] }, body)
}

async function renderIssue(w: WebRequest, loaded: LoadedProject, issue: IssueRow) {
  const [[view], description, discussion] = await Promise.all([
    issueViewsOf(w.ctx, [issue]),
    descriptionOf(w.ctx, loaded, issue.description),
    loadDiscussion(w.ctx, loaded, 'Issue', issue.iid),
  ])
  const notes = await discussionOf(w.ctx, loaded, discussion)
  const listPath = projectPath(loaded, '/-/issues')
  const body = html`<div class="issuable-header">
      ${stateBadge(issue.state)}
      ${issue.confidential === 1 ? html`<span class="badge confidential-badge" role="note">Confidential</span>` : ''}
      ${issue.discussion_locked === 1 ? html`<span class="badge locked-badge">Discussion locked</span>` : ''}
      <span class="meta">
        ${issue.issue_type === 'incident' ? 'Incident' : 'Issue'} created ${timeOf(issue.created_at)} by ${userLink(view.author)}
      </span>
    </div>
    <h1 class="issuable-title">${issue.title}</h1>
    <div class="issuable-layout">
      <div class="issuable-main">
        ${description}
        ${notes}
      </div>
      <aside class="issuable-sidebar" aria-label="Issue details">
        ${metadataFields(loaded, view)}
        ${sidebarField('Due date', issue.due_date ? html`<time datetime="${issue.due_date}">${issue.due_date}</time>` : '', 'due-date')}
        ${sidebarField('Confidentiality', issue.confidential === 1 ? 'Confidential: only project members with at least the Planner role, the author and assignees can see it.' : 'Not confidential', 'confidentiality')}
        ${
          issue.state === 'closed' && issue.closed_at
            ? sidebarField('Closed', html`${timeOf(issue.closed_at)}${view.closedBy ? html` by ${userLink(view.closedBy)}` : ''}`, 'closed')
            : ''
        }
      </aside>
    </div>`
  return renderProjectPage(
    w,
    loaded,
    { title: `${issue.title} (#${issue.iid})`, section: 'issues', crumbs: [{ text: 'Issues', href: listPath }, { text: `#${issue.iid}` }] },
    body,
  )
}

/** The issue of the path as the caller may see it (GL IssuePolicy: confidential ones only for those allowed). */
async function findIssueOfPage(w: WebRequest, loaded: LoadedProject): Promise<IssueRow> {
  const iid = iidOf(w.params.issue_iid)
  if (iid === null) throw new NotFound('Issue')
  return findIssue(w.ctx, loaded, iid)
}

export function registerIssuePages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/issues')) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadProjectIssues(loaded.access, loaded.project)) return w.notFound()
        return renderIssueList(w, loaded)
      }),
    )
  }
  const showIssue = projectPage(async (w, loaded) => renderIssue(w, loaded, await findIssueOfPage(w, loaded)))
  for (const url of [...projectPageRoutes('/-/issues/:issue_iid'), ...projectPageRoutes('/-/issues/incident/:issue_iid')]) {
    web.get(url, showIssue)
  }
}
