import type { MilestoneRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canReadMergeRequests, canReadMilestones, canReadProjectIssues, type LoadedProject } from '../access/index.js'
import { issueViewsOf, listProjectIssues } from '../issues/index.js'
import { listProjectMergeRequests, mergeRequestViewsOf } from '../merge-requests/index.js'
import { listMilestones } from '../milestones/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { issueRow } from './issues.js'
import { descriptionOf, iidOf, issuableListViewOf, listPager, searchForm, stateBadge, stateTabs } from './shared.js'

// The project's milestones (GL Projects::MilestonesController#index and #show).

const MILESTONES_PER_PAGE = 20
/** The issues and merge requests a milestone's page lists. */
const ITEMS_SHOWN = 50
const NO_FILTERS = { iids: null, title: null, search: null, searchTitle: null, updatedBefore: null, updatedAfter: null }

function milestoneState(milestone: MilestoneRow, today: string): Html {
  if (milestone.state === 'closed') return html`<span class="badge status-closed">Closed</span>`
  if (milestone.due_date !== null && milestone.due_date < today) return html`<span class="badge status-expired">Expired</span>`
  return html`<span class="badge status-opened">Open</span>`
}

function dates(milestone: MilestoneRow): Html {
  if (!milestone.start_date && !milestone.due_date) return html`<span class="none">No dates</span>`
  return html`${milestone.start_date ? html`<time datetime="${milestone.start_date}">${milestone.start_date}</time>` : 'No start date'}
  &ndash; ${milestone.due_date ? html`<time datetime="${milestone.due_date}">${milestone.due_date}</time>` : 'no due date'}`
}

function milestonePath(loaded: LoadedProject, milestone: Pick<MilestoneRow, 'iid'>): string {
  return projectPath(loaded, `/-/milestones/${milestone.iid}`)
}

async function renderMilestoneList(w: WebRequest, loaded: LoadedProject) {
  const base = projectPath(loaded, '/-/milestones')
  const view = issuableListViewOf(w.params, base, ['opened', 'closed', 'all'], 'opened')
  view.labels = []
  const stateFilter = (state: string) => (state === 'opened' ? 'active' : state === 'closed' ? 'closed' : null)
  const list = (state: string, page: number, perPage: number) =>
    listMilestones(w.ctx, loaded, { ...NO_FILTERS, state: stateFilter(state), search: view.search || null, page, perPage })
  const [result, open, closed, all] = await Promise.all([
    list(view.state, view.page, MILESTONES_PER_PAGE),
    list('opened', 1, 1),
    list('closed', 1, 1),
    list('all', 1, 1),
  ])
  const today = w.ctx.now().toISOString().slice(0, 10)
  const body = html`<h1>Milestones</h1>
    ${stateTabs(
      view,
      [
        { state: 'opened', label: 'Open', count: open.total },
        { state: 'closed', label: 'Closed', count: closed.total },
        { state: 'all', label: 'All', count: all.total },
      ],
      'Milestone states',
    )}
    ${searchForm(view, 'milestone', 'Search by title or description')}
    ${
      result.rows.length === 0
        ? html`<div class="empty-state no-milestones">
            <p>${view.search ? 'No milestones match your search.' : 'There are no milestones to show.'}</p>
            <p>Milestones group issues and merge requests toward a date; they are created through the API.</p>
          </div>`
        : html`<ul class="list milestone-list">
            ${result.rows.map(
              (milestone) => html`<li class="milestone-row" id="milestone_${milestone.iid}">
                <div class="grow">
                  <a class="title" href="${milestonePath(loaded, milestone)}">${milestone.title}</a>
                  <div class="meta">%${milestone.title} · ${dates(milestone)}</div>
                </div>
                ${milestoneState(milestone, today)}
              </li>`,
            )}
          </ul>`
    }
    ${listPager(view, MILESTONES_PER_PAGE, result.total, result.hasNext)}`
  return renderProjectPage(w, loaded, { title: 'Milestones', section: null, crumbs: [{ text: 'Milestones', href: base }] }, body)
}

async function renderMilestone(w: WebRequest, loaded: LoadedProject, milestone: MilestoneRow) {
  const { ctx } = w
  const issuesShown = canReadProjectIssues(loaded.access, loaded.project)
  const mergeRequestsShown = canReadMergeRequests(loaded.access, loaded.project)
  const issueList = (state: string, perPage: number) =>
    listProjectIssues(ctx, loaded, {
      filters: { state, milestoneId: milestone.id },
      orderBy: 'created_at',
      sort: 'desc',
      pagination: { kind: 'offset', page: 1, perPage },
    })
  const [issues, closedIssues, mergeRequests, description] = await Promise.all([
    issuesShown ? issueList('all', ITEMS_SHOWN) : null,
    issuesShown ? issueList('closed', 1) : null,
    mergeRequestsShown
      ? listProjectMergeRequests(ctx, loaded, {
          filters: { state: 'all', milestoneId: milestone.id },
          orderBy: 'created_at',
          sort: 'desc',
          page: 1,
          perPage: ITEMS_SHOWN,
        })
      : null,
    descriptionOf(ctx, loaded, milestone.description),
  ])
  const issuePage = issues?.kind === 'offset' ? issues.page : null
  const [issueViews, mergeRequestViews] = await Promise.all([
    issueViewsOf(ctx, issuePage?.rows ?? []),
    mergeRequestViewsOf(ctx, mergeRequests?.rows ?? []),
  ])
  const total = issuePage?.total ?? 0
  const closed = closedIssues?.kind === 'offset' ? (closedIssues.page.total ?? 0) : 0
  const percent = total === 0 ? 0 : Math.floor((closed / total) * 100)
  const today = ctx.now().toISOString().slice(0, 10)
  const listPath = projectPath(loaded, '/-/milestones')
  const body = html`<div class="issuable-header">
      ${milestoneState(milestone, today)}
      <span class="meta">Milestone %${milestone.title} · created ${timeOf(milestone.created_at)}</span>
    </div>
    <h1 class="issuable-title">${milestone.title}</h1>
    <dl class="fields milestone-fields">
      <dt>Dates</dt>
      <dd>${dates(milestone)}</dd>
      ${
        issuesShown
          ? html`<dt>Progress</dt>
              <dd>
                <progress class="milestone-progress" max="100" value="${percent}" aria-label="Closed issues">${percent}%</progress>
                <span class="progress-text">${closed} of ${total} issues closed (${percent}%)</span>
              </dd>`
          : ''
      }
    </dl>
    ${description}
    ${
      issuesShown
        ? html`<section aria-labelledby="milestone-issues">
            <h2 id="milestone-issues">Issues <span class="badge count">${total}</span></h2>
            ${
              issueViews.length === 0
                ? html`<p class="empty-state">No issues are in this milestone.</p>`
                : html`<ul class="list issuable-list">
                    ${issueViews.map((view) => issueRow(loaded, view))}
                  </ul>`
            }
          </section>`
        : ''
    }
    ${
      mergeRequests
        ? html`<section aria-labelledby="milestone-merge-requests">
            <h2 id="milestone-merge-requests">Merge requests <span class="badge count">${mergeRequests.total ?? '10000+'}</span></h2>
            ${
              mergeRequestViews.length === 0
                ? html`<p class="empty-state">No merge requests are in this milestone.</p>`
                : html`<ul class="list issuable-list">
                    ${mergeRequestViews.map(
                      ({ mergeRequest }) => html`<li class="merge-request-row">
                        <div class="grow">
                          <a class="title" href="${projectPath(loaded, `/-/merge_requests/${mergeRequest.iid}`)}">${mergeRequest.title}</a>
                          <div class="meta">!${mergeRequest.iid}</div>
                        </div>
                        ${stateBadge(mergeRequest.state)}
                      </li>`,
                    )}
                  </ul>`
            }
          </section>`
        : ''
    }`
  return renderProjectPage(
    w,
    loaded,
    { title: milestone.title, section: null, crumbs: [{ text: 'Milestones', href: listPath }, { text: milestone.title }] },
    body,
  )
}

export function registerMilestonePages(web: WebRouter) {
  for (const url of projectPageRoutes('/-/milestones')) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadMilestones(loaded.access, loaded.project)) return w.notFound()
        return renderMilestoneList(w, loaded)
      }),
    )
  }
  for (const url of projectPageRoutes('/-/milestones/:milestone_iid')) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        const iid = iidOf(w.params.milestone_iid)
        if (iid === null || !canReadMilestones(loaded.access, loaded.project)) return w.notFound()
        const found = await listMilestones(w.ctx, loaded, { ...NO_FILTERS, state: null, iids: [iid], page: 1, perPage: 1 })
        const milestone = found.rows[0]
        return milestone ? renderMilestone(w, loaded, milestone) : w.notFound()
      }),
    )
  }
}
