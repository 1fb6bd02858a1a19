import type { MilestoneRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canAdminMilestones, canReadMergeRequests, canReadMilestones, canReadProjectIssues, type LoadedProject } from '../access/index.js'
import { issueViewsOf, listProjectIssues } from '../issues/index.js'
import { listProjectMergeRequests, mergeRequestViewsOf } from '../merge-requests/index.js'
import { listMilestones, milestoneProgress, type MilestoneProgress } from '../milestones/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { issueRow } from './issues.js'
import { milestoneOf, milestonePath, milestonesPath, NO_FILTERS, registerMilestoneForms } from './milestone-forms.js'
import { descriptionOf, issuableListViewOf, listPager, searchForm, stateBadge, stateTabs } from './shared.js'

// The project's milestones (GL Projects::MilestonesController#index and #show): each with its progress, the closed
// share of its issues, and for Reporters and up the buttons that create, close, reopen, edit and delete them.

const MILESTONES_PER_PAGE = 20
/** The issues and merge requests a milestone's page lists. */
const ITEMS_SHOWN = 50

/** GL milestone_status_string: Closed, Expired (past its due date), Upcoming (before its start date) or Open. */
function milestoneState(milestone: MilestoneRow, today: string): Html {
  if (milestone.state === 'closed') return html`<span class="badge status-closed">Closed</span>`
  if (milestone.due_date !== null && milestone.due_date < today) return html`<span class="badge status-expired">Expired</span>`
  if (milestone.start_date !== null && milestone.start_date > today) return html`<span class="badge status-upcoming">Upcoming</span>`
  return html`<span class="badge status-opened">Open</span>`
}

function dates(milestone: MilestoneRow): Html {
  if (!milestone.start_date && !milestone.due_date) return html`<span class="none">No dates</span>`
  return html`${milestone.start_date ? html`<time datetime="${milestone.start_date}">${milestone.start_date}</time>` : 'No start date'}
  &ndash; ${milestone.due_date ? html`<time datetime="${milestone.due_date}">${milestone.due_date}</time>` : 'no due date'}`
}

function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`
}

/** The progress bar: a <progress> element (no inline style under the CSP), with the share in words beside it. */
export function progressBar(milestone: MilestoneRow, progress: MilestoneProgress): Html {
  return html`<progress class="milestone-progress" max="100" value="${progress.percentComplete}" aria-label="Progress of ${milestone.title}"
    >${progress.percentComplete}%</progress
  >`
}

/** Close or Reopen: a PUT of the milestone's state_event, as GitLab's buttons send it. */
export function stateButton(loaded: LoadedProject, milestone: MilestoneRow, token: string, small: boolean): Html {
  const closing = milestone.state !== 'closed'
  return html`<form method="post" action="${milestonePath(loaded, milestone)}" class="inline">
    ${csrfField(token)}
    <input type="hidden" name="_method" value="put" />
    <input type="hidden" name="milestone[state_event]" value="${closing ? 'close' : 'activate'}" />
    <button type="submit" class="${small ? 'small' : ''}" aria-label="${closing ? 'Close' : 'Reopen'} milestone ${milestone.title}">
      ${closing ? 'Close milestone' : 'Reopen milestone'}
    </button>
  </form>`
}

async function renderMilestoneList(w: WebRequest, loaded: LoadedProject) {
  const base = milestonesPath(loaded)
  const view = issuableListViewOf(w.params, base, ['opened', 'closed', 'all'], 'opened')
  view.labels = []
  const stateFilter = (state: string) => (state === 'opened' ? 'active' : state === 'closed' ? 'closed' : null)
  const list = (state: string, page: number, perPage: number) =>
    listMilestones(w.ctx, loaded, {
      ...NO_FILTERS,
      state: stateFilter(state),
      search: view.search || null,
      page,
      perPage,
      order: 'due_date_asc',
    })
  const [result, open, closed, all] = await Promise.all([
    list(view.state, view.page, MILESTONES_PER_PAGE),
    list('opened', 1, 1),
    list('closed', 1, 1),
    list('all', 1, 1),
  ])
  const progress = await milestoneProgress(
    w.ctx,
    loaded,
    result.rows.map((milestone) => milestone.id),
  )
  const canAdmin = canAdminMilestones(loaded.access, loaded.project)
  const token = canAdmin ? await w.csrfToken() : ''
  const mergeRequestsShown = canReadMergeRequests(loaded.access, loaded.project)
  const today = w.ctx.now().toISOString().slice(0, 10)
  const newButton = canAdmin ? html`<a class="button primary" href="${milestonesPath(loaded, '/new')}">New milestone</a>` : ''
  const body =
    all.total === 0 && !view.search
      ? html`<h1>Milestones</h1>
          <div class="empty-state no-milestones">
            <p><strong>Use milestones to track issues and merge requests over a fixed period of time</strong></p>
            <p>Organize issues and merge requests into a cohesive group, and set optional start and due dates.</p>
            ${canAdmin ? html`<p>${newButton}</p>` : ''}
          </div>`
      : html`<div class="header-row">
            <h1>Milestones</h1>
            ${canAdmin ? html`<div class="actions">${newButton}</div>` : ''}
          </div>
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
                </div>`
              : html`<ul class="list milestone-list">
                  ${result.rows.map((milestone) => {
                    const counts = progress.get(milestone.id)!
                    return html`<li class="milestone-row" id="milestone_${milestone.iid}">
                      <div class="grow">
                        <a class="title" href="${milestonePath(loaded, milestone)}">${milestone.title}</a>
                        <div class="meta">${dates(milestone)}</div>
                        <div>${milestoneState(milestone, today)}</div>
                      </div>
                      <div class="milestone-progress-cell">
                        ${progressBar(milestone, counts)}
                        <div class="meta">
                          <a href="${milestonePath(loaded, milestone)}#milestone-issues">${plural(counts.issues, 'Issue')}</a>
                          ${
                            mergeRequestsShown
                              ? html` &middot;
                                <a href="${milestonePath(loaded, milestone)}#milestone-merge-requests">${plural(counts.mergeRequests, 'Merge request')}</a>`
                              : ''
                          }
                          &middot; <span class="percent-complete">${counts.percentComplete}% complete</span>
                        </div>
                      </div>
                      ${canAdmin ? html`<div class="row-actions">${stateButton(loaded, milestone, token, true)}</div>` : ''}
                    </li>`
                  })}
                </ul>`
          }
          ${listPager(view, MILESTONES_PER_PAGE, result.total, result.hasNext)}`
  return renderProjectPage(w, loaded, { title: 'Milestones', section: 'milestones', crumbs: [{ text: 'Milestones', href: base }] }, body)
}

/** Delete, confirmed in a disclosure first with GitLab's words (GitLab asks in a modal). */
function deleteControl(loaded: LoadedProject, milestone: MilestoneRow, progress: MilestoneProgress, token: string): Html {
  const used = progress.issues > 0 || progress.mergeRequests > 0
  return html`<details class="menu confirm-menu">
    <summary class="button danger-outline">Delete</summary>
    <div class="menu-items confirm-box" role="group" aria-label="Delete milestone ${milestone.title}?">
      <p>
        ${
          used
            ? html`You&rsquo;re about to permanently delete the milestone <strong>${milestone.title}</strong> and remove it from
                ${plural(progress.issues, 'issue')} and ${plural(progress.mergeRequests, 'merge request')}. Once deleted, it cannot be undone
                or recovered.`
            : html`You&rsquo;re about to permanently delete the milestone <strong>${milestone.title}</strong>. This milestone is not
                currently used in any issues or merge requests.`
        }
      </p>
      <form method="post" action="${milestonePath(loaded, milestone)}">
        ${csrfField(token)}
        <input type="hidden" name="_method" value="delete" />
        <button type="submit" class="danger">Delete milestone</button>
      </form>
    </div>
  </details>`
}

async function renderMilestone(w: WebRequest, loaded: LoadedProject, milestone: MilestoneRow) {
  const { ctx } = w
  const issuesShown = canReadProjectIssues(loaded.access, loaded.project)
  const mergeRequestsShown = canReadMergeRequests(loaded.access, loaded.project)
  const [issues, mergeRequests, description, progressById] = await Promise.all([
    issuesShown
      ? listProjectIssues(ctx, loaded, {
          filters: { state: 'all', milestoneId: milestone.id },
          orderBy: 'created_at',
          sort: 'desc',
          pagination: { kind: 'offset', page: 1, perPage: ITEMS_SHOWN },
        })
      : null,
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
    milestoneProgress(ctx, loaded, [milestone.id]),
  ])
  const progress = progressById.get(milestone.id)!
  const issuePage = issues?.kind === 'offset' ? issues.page : null
  const [issueViews, mergeRequestViews] = await Promise.all([
    issueViewsOf(ctx, issuePage?.rows ?? []),
    mergeRequestViewsOf(ctx, mergeRequests?.rows ?? []),
  ])
  const canAdmin = canAdminMilestones(loaded.access, loaded.project)
  const token = canAdmin ? await w.csrfToken() : ''
  const today = ctx.now().toISOString().slice(0, 10)
  const body = html`<div class="issuable-header">
      ${milestoneState(milestone, today)}
      <span class="meta">Milestone %${milestone.title} · created ${timeOf(milestone.created_at)}</span>
      ${
        canAdmin
          ? html`<div class="row-actions milestone-actions">
              ${stateButton(loaded, milestone, token, false)}
              <a class="button" href="${milestonePath(loaded, milestone, '/edit')}">Edit</a>
              ${deleteControl(loaded, milestone, progress, token)}
            </div>`
          : ''
      }
    </div>
    <h1 class="issuable-title">${milestone.title}</h1>
    <dl class="fields milestone-fields">
      <dt>Dates</dt>
      <dd>${dates(milestone)}</dd>
      ${
        issuesShown
          ? html`<dt>Progress</dt>
              <dd>
                ${progressBar(milestone, progress)}
                <span class="progress-text"
                  >${progress.closedIssues} of ${progress.issues} issues closed (${progress.percentComplete}% complete)</span
                >
              </dd>`
          : ''
      }
    </dl>
    ${description}
    ${
      issuesShown
        ? html`<section aria-labelledby="milestone-issues">
            <h2 id="milestone-issues">Issues <span class="badge count">${progress.issues}</span></h2>
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
            <h2 id="milestone-merge-requests">Merge requests <span class="badge count">${progress.mergeRequests}</span></h2>
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
    {
      title: milestone.title,
      section: 'milestones',
      crumbs: [{ text: 'Milestones', href: milestonesPath(loaded) }, { text: milestone.title }],
    },
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
        const milestone = await milestoneOf(w, loaded)
        return milestone ? renderMilestone(w, loaded, milestone) : w.notFound()
      }),
    )
  }
  registerMilestoneForms(web)
}
