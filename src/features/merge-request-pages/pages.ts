import { NotFound } from '../../core/errors.js'
import type { MergeRequestDiffRow, MergeRequestRow } from '../../db/schema.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import {
  canCreateMergeRequest,
  canReadMergeRequests,
  canUpdateMergeRequest,
  findMergeRequest,
  findProjectsByIds,
  type LoadedProject,
} from '../access/index.js'
import { commitTitle, shortCommitId } from '../commits/index.js'
import { diffSection, diffViewModeOf, type DiffLineRef, type LineExtras } from '../diff-view/index.js'
import {
  avatar,
  descriptionOf,
  filteredListOf,
  finderFiltersOf,
  iidOf,
  isFiltered,
  labelBadge,
  labelChoices,
  listFilters,
  listPager,
  metadataFields,
  milestoneChoices,
  stateBadge,
  stateTabs,
  userLink,
  type FilteredList,
  type ListFilterSpec,
  type SortOption,
} from '../issuable-pages/index.js'
import {
  closingIssuesOf,
  listMergeRequestCommits,
  listMergeRequestDiffs,
  listMergeRequestVersions,
  listProjectMergeRequests,
  mergeRequestViewsOf,
  showApprovalState,
  showMergePanel,
  type ListMergeRequestsInput,
  type MergeRequestView,
} from '../merge-requests/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { FileDiff } from '../repositories/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { mergeWidget } from './merge-widget.js'
import { approvalsSection } from './approvals.js'
import { encodeRef, mergeRequestPath, mergeRequestsPath } from './paths.js'
import { activitySection, diffsPath, lineNoteForm, loadThreads, threadHtml, threadsByLine, type NoteFormState } from './threads.js'

// The merge request list and a merge request's review pages: overview with its merge widget and discussion, commits,
// and changes with threads under their lines (GL Projects::MergeRequestsController#index, #show, #commits, #diffs).

const MERGE_REQUESTS_PER_PAGE = 20
const MERGE_REQUEST_STATES = ['opened', 'merged', 'closed', 'all'] as const

// ---------------------------------------------------------------- the list

type Order = ListMergeRequestsInput['orderBy']

/** GitLab's merge request sorts (`getSortOptions` without priority, popularity and closed date), by their URL names. */
const SORTS: SortOption<Order>[] = [
  { name: 'created_date', label: 'Created date', orderBy: 'created_at', sort: 'desc' },
  { name: 'created_asc', label: 'Created date, oldest', orderBy: 'created_at', sort: 'asc' },
  { name: 'updated_desc', label: 'Updated date', orderBy: 'updated_at', sort: 'desc' },
  { name: 'updated_asc', label: 'Updated date, oldest', orderBy: 'updated_at', sort: 'asc' },
  { name: 'milestone', label: 'Milestone due date', orderBy: 'milestone_due', sort: 'asc' },
  { name: 'milestone_due_desc', label: 'Milestone due date, latest', orderBy: 'milestone_due', sort: 'desc' },
  { name: 'title_asc', label: 'Title', orderBy: 'title', sort: 'asc' },
  { name: 'title_desc', label: 'Title, Z to A', orderBy: 'title', sort: 'desc' },
]
const MERGED_SORTS: SortOption<Order>[] = [
  ...SORTS,
  { name: 'merged_at_desc', label: 'Merged date', orderBy: 'merged_at', sort: 'desc' },
  { name: 'merged_at_asc', label: 'Merged date, oldest', orderBy: 'merged_at', sort: 'asc' },
]

const MERGE_REQUEST_FILTERS: ListFilterSpec<Order> = {
  kind: 'merge_request',
  noun: 'merge requests',
  sortsOf: (state) => (state === 'merged' ? MERGED_SORTS : SORTS),
  defaultSort: 'created_date',
  byReviewer: true,
}

function listInput(list: FilteredList<Order>, state: string, page: number, perPage: number): ListMergeRequestsInput {
  const { order } = list.filters
  return { filters: finderFiltersOf(list, state), orderBy: order.orderBy, sort: order.sort, page, perPage }
}

/** The list filtered by a label: where the list's label badges point. */
function labelMergeRequestsPath(loaded: LoadedProject, title: string): string {
  return `${mergeRequestsPath(loaded)}?label_name[]=${encodeURIComponent(title)}`
}

function mergeRequestRow(loaded: LoadedProject, view: MergeRequestView): Html {
  const { mergeRequest: mr } = view
  const when =
    mr.state === 'merged' && mr.merged_at
      ? html`merged ${timeOf(mr.merged_at)}`
      : mr.state === 'closed' && mr.closed_at
        ? html`closed ${timeOf(mr.closed_at)}`
        : html`opened ${timeOf(mr.created_at)}`
  return html`<li class="issuable-row merge-request-row" id="merge_request_${mr.iid}">
    <div class="grow">
      <a class="title" href="${mergeRequestPath(loaded, mr.iid)}">${mr.title}</a>
      ${mr.draft === 1 ? html`<span class="badge draft-badge">Draft</span>` : ''}
      ${view.labels.map((label) => labelBadge(label, labelMergeRequestsPath(loaded, label.title)))}
      <div class="meta">
        !${mr.iid} · ${when} by ${view.author.name} ·
        <code class="ref-name">${mr.source_branch}</code> &rarr; <code class="ref-name">${mr.target_branch}</code>
        ${view.milestone ? html` · <span class="milestone-ref">${view.milestone.title}</span>` : ''}
      </div>
    </div>
    <div class="meta row-side">
      ${mr.state !== 'opened' ? stateBadge(mr.state) : ''}
      ${view.assignees.length > 0 ? html`<span class="assignee-avatars">${view.assignees.map((user) => avatar(user))}</span>` : ''}
      <span class="comments-count">${view.userNotesCount} ${view.userNotesCount === 1 ? 'comment' : 'comments'}</span>
    </div>
  </li>`
}

async function renderList(w: WebRequest, loaded: LoadedProject) {
  const base = mergeRequestsPath(loaded)
  const list = filteredListOf(w.params, base, MERGE_REQUEST_STATES, 'opened', MERGE_REQUEST_FILTERS)
  const { view } = list
  const [result, labels, milestones, ...counts] = await Promise.all([
    listProjectMergeRequests(w.ctx, loaded, listInput(list, view.state, view.page, MERGE_REQUESTS_PER_PAGE)),
    labelChoices(w.ctx, loaded),
    milestoneChoices(w.ctx, loaded),
    ...MERGE_REQUEST_STATES.map(async (state) => (await listProjectMergeRequests(w.ctx, loaded, listInput(list, state, 1, 1))).total),
  ])
  const views = await mergeRequestViewsOf(w.ctx, result.rows)
  const tabs = [
    { state: 'opened', label: 'Open', count: counts[0] },
    { state: 'merged', label: 'Merged', count: counts[1] },
    { state: 'closed', label: 'Closed', count: counts[2] },
    { state: 'all', label: 'All', count: counts[3] },
  ]
  const stateWords: Record<string, string> = { opened: 'open ', merged: 'merged ', closed: 'closed ', all: '' }
  const mayCreate = w.ctx.caller.user !== null && canCreateMergeRequest(loaded.access, loaded.project)
  const body = html`<div class="header-row">
      <h1>Merge requests</h1>
      ${mayCreate ? html`<div class="actions"><a class="button primary" href="${mergeRequestsPath(loaded, '/new')}">New merge request</a></div>` : ''}
    </div>
    ${stateTabs(view, tabs, 'Merge request states')} ${listFilters(list, labels, milestones)}
    ${
      views.length === 0
        ? html`<div class="empty-state no-merge-requests">
            <p>${isFiltered(list) ? 'No merge requests match your search or filter.' : `There are no ${stateWords[view.state]}merge requests.`}</p>
            <p>
              Merge requests propose changes from one branch to another${
                mayCreate ? html`: <a href="${mergeRequestsPath(loaded, '/new')}">create one</a> from a branch you pushed.` : '.'
              }
            </p>
          </div>`
        : html`<ul class="list issuable-list">
            ${views.map((mergeRequestView) => mergeRequestRow(loaded, mergeRequestView))}
          </ul>`
    }
    ${listPager(view, MERGE_REQUESTS_PER_PAGE, result.total, result.hasNext)}`
  return renderProjectPage(
    w,
    loaded,
    { title: 'Merge requests', section: 'merge_requests', crumbs: [{ text: 'Merge requests', href: base }] },
    body,
  )
}

// ---------------------------------------------------------------- one merge request

type Tab = 'overview' | 'commits' | 'diffs'

interface Loaded {
  view: MergeRequestView
  version: MergeRequestDiffRow | null
  /** The source project's path when it is another project (a fork). */
  sourcePath: string | null
}

/** What a refused form on the page brings back: the form, what was typed and why. */
export interface PageState {
  note?: NoteFormState
  status?: number
}

async function loadMergeRequest(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow, view?: MergeRequestView): Promise<Loaded> {
  const sourceId = row.source_project_id ?? row.project_id
  const [views, versions, sourceProjects] = await Promise.all([
    view ? [view] : mergeRequestViewsOf(w.ctx, [row]),
    listMergeRequestVersions(w.ctx, loaded, row),
    sourceId === row.project_id ? [] : findProjectsByIds(w.ctx.db, [sourceId]),
  ])
  return { view: views[0], version: versions[0] ?? null, sourcePath: sourceProjects[0]?.full_path ?? null }
}

function branchLink(projectFullPath: string, branch: string, prefix: string | null): Html {
  return html`<a class="ref-name" href="/${projectFullPath}/-/tree/${encodeRef(branch)}"><code>${prefix ? `${prefix}:` : ''}${branch}</code></a>`
}

/** Edit, Mark as draft or as ready, and Close or Reopen, for those who may update the merge request (GL `update_merge_request`). */
async function headerActions(w: WebRequest, loaded: LoadedProject, view: MergeRequestView): Promise<Html> {
  const mr = view.mergeRequest
  const mayUpdate =
    w.ctx.caller.user !== null &&
    canUpdateMergeRequest(
      loaded.access,
      loaded.project,
      mr,
      view.assignees.map((user) => user.id),
    )
  if (!mayUpdate) return html``
  const token = await w.csrfToken()
  const putForm = (field: 'state_event' | 'wip_event', value: string, label: string) =>
    html`<form method="post" action="${mergeRequestPath(loaded, mr.iid)}" class="inline">
      ${csrfField(token)}<input type="hidden" name="_method" value="put" />
      <input type="hidden" name="merge_request[${field}]" value="${value}" />
      <button type="submit">${label}</button>
    </form>`
  // GL toggle_draft_merge_request_path: an open merge request is marked as a draft, or as ready.
  const draftForm = mr.draft === 1 ? putForm('wip_event', 'ready', 'Mark as ready') : putForm('wip_event', 'draft', 'Mark as draft')
  return html`<div class="mr-actions">
    <a class="button" href="${mergeRequestPath(loaded, mr.iid, '/edit')}">Edit</a> ${mr.state === 'opened' ? draftForm : ''}
    ${mr.state === 'opened' || mr.state === 'locked' ? putForm('state_event', 'close', 'Close merge request') : ''}
    ${mr.state === 'closed' ? putForm('state_event', 'reopen', 'Reopen merge request') : ''}
  </div>`
}

async function header(w: WebRequest, loaded: LoadedProject, data: Loaded, tab: Tab, counts: { commits?: number }): Promise<Html> {
  const { view, version } = data
  const { mergeRequest: mr } = view
  const source = branchLink(data.sourcePath ?? loaded.project.full_path, mr.source_branch, data.sourcePath)
  const target = branchLink(loaded.project.full_path, mr.target_branch, null)
  const stateLine =
    mr.state === 'merged'
      ? html`${view.mergedBy ? userLink(view.mergedBy) : 'Someone'} merged ${source} into ${target}${mr.merged_at ? html` ${timeOf(mr.merged_at)}` : ''}`
      : html`${userLink(view.author)} requested to merge ${source} into ${target} ${timeOf(mr.created_at)}`
  const tabLink = (name: Tab, label: string, suffix: string, count: string | number | null) =>
    html`<a href="${mergeRequestPath(loaded, mr.iid, suffix)}" ${tab === name ? html`aria-current="page"` : ''}
      >${label}${count === null ? '' : html` <span class="badge count">${count}</span>`}</a
    >`
  return html`<div class="issuable-header">
      ${stateBadge(mr.state)} ${mr.draft === 1 ? html`<span class="badge draft-badge">Draft</span>` : ''}
      ${mr.discussion_locked === 1 ? html`<span class="badge locked-badge">Discussion locked</span>` : ''}
      <span class="meta">Merge request !${mr.iid}</span> ${await headerActions(w, loaded, view)}
    </div>
    <h1 class="issuable-title">${mr.title}</h1>
    <p class="merge-request-branches">${stateLine}</p>
    <nav class="tabs merge-request-tabs" aria-label="Merge request">
      ${tabLink('overview', 'Overview', '', view.userNotesCount)} ${tabLink('commits', 'Commits', '/commits', counts.commits ?? null)}
      ${tabLink('diffs', 'Changes', '/diffs', version?.real_size ?? 0)}
    </nav>`
}

function render(w: WebRequest, loaded: LoadedProject, data: Loaded, tab: Tab, body: Html, status = 200) {
  const mr = data.view.mergeRequest
  const titles: Record<Tab, string> = { overview: '', commits: 'Commits · ', diffs: 'Changes · ' }
  return renderProjectPage(
    w,
    loaded,
    {
      title: `${titles[tab]}${mr.title} (!${mr.iid})`,
      section: 'merge_requests',
      status,
      crumbs: [
        { text: 'Merge requests', href: mergeRequestsPath(loaded) },
        { text: `!${mr.iid}`, href: mergeRequestPath(loaded, mr.iid) },
      ],
    },
    body,
  )
}

/** The overview: description, the merge widget, the activity with a comment form, and the sidebar. */
export async function renderOverview(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow, state: PageState = {}) {
  const [panel, description, threads, closing, approvals] = await Promise.all([
    showMergePanel(w.ctx, loaded, row),
    descriptionOf(w.ctx, loaded, row.description),
    loadThreads(w.ctx, loaded, row),
    row.state === 'opened' ? closingIssuesOf(w.ctx, loaded, row) : [],
    showApprovalState(w.ctx, loaded, row),
  ])
  const data = await loadMergeRequest(w, loaded, row, panel.view)
  const csrfToken = w.ctx.caller.user ? await w.csrfToken() : null
  const body = html`${await header(w, loaded, data, 'overview', {})}
    <div class="issuable-layout">
      <div class="issuable-main">
        ${description} ${approvalsSection(loaded, row, approvals, csrfToken)} ${mergeWidget(loaded, row, panel, csrfToken, closing)}
        ${activitySection(threads, loaded, row, {
          csrfToken: csrfToken ?? '',
          state: state.note ?? null,
          latestHead: data.version?.head_commit_sha ?? null,
        })}
      </div>
      <aside class="issuable-sidebar" aria-label="Merge request details">${metadataFields(loaded, panel.view)}</aside>
    </div>`
  return render(w, loaded, data, 'overview', body, state.status)
}

async function renderCommits(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow) {
  const [data, commits] = await Promise.all([loadMergeRequest(w, loaded, row), listMergeRequestCommits(w.ctx, loaded, row)])
  const body = html`${await header(w, loaded, data, 'commits', { commits: commits.length })}
    ${
      commits.length === 0
        ? html`<div class="empty-state no-commits"><p>There are no commits yet: push to the source branch to add some.</p></div>`
        : html`<ul class="list commit-list">
            ${commits.map(
              (commit) => html`<li class="commit-row" id="commit_${commit.oid}">
                <div class="grow">
                  <a class="title" href="${projectPath(loaded, `/-/commit/${commit.oid}`)}">${commitTitle(commit.message)}</a>
                  <div class="meta">${commit.author.name} authored ${timeOf(new Date(commit.author.date).toISOString())}</div>
                </div>
                <a class="button small commit-sha" href="${projectPath(loaded, `/-/commit/${commit.oid}`)}" aria-label="Commit ${commit.oid}"
                  ><code>${shortCommitId(commit.oid)}</code></a
                >
              </li>`,
            )}
          </ul>`
    }`
  return render(w, loaded, data, 'commits', body)
}

/**
 * The changes: each line has a "+" link (for those who may comment) that opens this page with a form under the line
 * (`?line_code=`); the threads on the latest version's lines show under them.
 */
export async function renderDiffs(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow, state: PageState = {}) {
  const [data, diff, threads] = await Promise.all([
    loadMergeRequest(w, loaded, row),
    listMergeRequestDiffs(w.ctx, loaded, row),
    loadThreads(w.ctx, loaded, row),
  ])
  const { version } = data
  const head = version?.head_commit_sha ?? null
  const mode = diffViewModeOf(textOf(w.params.view))
  const csrfToken = w.ctx.caller.user ? await w.csrfToken() : ''
  const byLine = threadsByLine(threads, version)
  const openLine = state.note?.form.startsWith('line:') ? state.note.form.slice('line:'.length) : textOf(w.params.line_code)
  const lineExtras = (file: FileDiff, line: DiffLineRef, copy: 'main' | 'phone'): LineExtras => {
    const idSuffix = copy === 'phone' ? '_phone' : ''
    const lineThreads = byLine.get(line.lineCode) ?? []
    const showForm = threads.mayComment && version !== null && openLine === line.lineCode
    const below = html`${lineThreads.map((discussion) =>
      threadHtml(threads, loaded, row, discussion, {
        csrfToken,
        state: state.note ?? null,
        returnTo: { tab: 'diffs', view: mode },
        context: null,
        idSuffix,
      }),
    )}${showForm ? lineNoteForm(loaded, row, version, file, line, { csrfToken, state: state.note ?? null, view: mode, idSuffix }) : ''}`
    return {
      commentHref:
        threads.mayComment && version !== null
          ? `${diffsPath(loaded, row, mode, `line_code=${line.lineCode}`)}#line_form_${line.lineCode}`
          : null,
      below: below.text.trim() === '' ? null : below,
    }
  }
  const changes = await diffSection(diff, {
    mode,
    pageUrl: mergeRequestPath(loaded, row.iid, '/diffs'),
    blobUrlOf: (file) => (head && !file.deletedFile ? projectPath(loaded, `/-/blob/${head}/${encodeRef(file.newPath)}`) : null),
    overflowHint: html`Plain diff:
      <a href="/api/v4/projects/${loaded.project.id}/merge_requests/${row.iid}/raw_diffs">raw_diffs</a>.`,
    emptyText: 'No changes between the source and target branches.',
    lineExtras,
  })
  return render(w, loaded, data, 'diffs', html`${await header(w, loaded, data, 'diffs', {})} ${changes}`, state.status)
}

/** The merge request of the path as the caller may see it (GL `read_merge_request`). */
export async function findMergeRequestOfPage(w: WebRequest, loaded: LoadedProject): Promise<MergeRequestRow> {
  const iid = iidOf(w.params.merge_request_iid)
  if (iid === null) throw new NotFound('Merge Request')
  return findMergeRequest(w.ctx, loaded, iid)
}

export function registerMergeRequestPageRoutes(web: WebRouter) {
  for (const url of projectPageRoutes('/-/merge_requests')) {
    web.get(
      url,
      projectPage(async (w, loaded) => {
        if (!canReadMergeRequests(loaded.access, loaded.project)) return w.notFound()
        return renderList(w, loaded)
      }),
    )
  }
  const pages: [string, (w: WebRequest, loaded: LoadedProject, row: MergeRequestRow) => Promise<unknown>][] = [
    ['', renderOverview],
    ['/commits', renderCommits],
    ['/diffs', renderDiffs],
  ]
  for (const [suffix, renderTab] of pages) {
    for (const url of projectPageRoutes(`/-/merge_requests/:merge_request_iid${suffix}`)) {
      web.get(
        url,
        projectPage(async (w, loaded) => renderTab(w, loaded, await findMergeRequestOfPage(w, loaded))),
      )
    }
  }
}
