import { NotFound } from '../../core/errors.js'
import type { MergeRequestDiffRow, MergeRequestRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import { canReadMergeRequests, findMergeRequest, findProjectsByIds, type LoadedProject } from '../access/index.js'
import { commitTitle, shortCommitId } from '../commits/index.js'
import { diffSection, diffViewModeOf } from '../diff-view/index.js'
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
  metadataFields,
  searchForm,
  stateBadge,
  stateTabs,
  userLink,
  type IssuableListView,
} from '../issuable-pages/index.js'
import {
  listMergeRequestCommits,
  listMergeRequestDiffs,
  listMergeRequestVersions,
  listProjectMergeRequests,
  mergeRequestViewsOf,
  type ListMergeRequestsInput,
  type MergeRequestView,
} from '../merge-requests/index.js'
import { projectPage, projectPageRoutes, projectPath, renderProjectPage } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'

// The merge request list and a merge request's review pages: overview with its discussion, commits, and changes
// (GL Projects::MergeRequestsController#index, #show, #commits, #diffs).

const MERGE_REQUESTS_PER_PAGE = 20
const MERGE_REQUEST_STATES = ['opened', 'merged', 'closed', 'all'] as const

function mergeRequestsPath(loaded: LoadedProject): string {
  return projectPath(loaded, '/-/merge_requests')
}

function mergeRequestPath(loaded: LoadedProject, iid: number, tab = ''): string {
  return projectPath(loaded, `/-/merge_requests/${iid}${tab}`)
}

function encodeRef(ref: string): string {
  return ref.split('/').map(encodeURIComponent).join('/')
}

// ---------------------------------------------------------------- the list

function listInput(view: IssuableListView, state: string, page: number, perPage: number): ListMergeRequestsInput {
  return {
    filters: { state, search: view.search || undefined, labels: view.labels.length > 0 ? view.labels : undefined },
    orderBy: 'created_at',
    sort: 'desc',
    page,
    perPage,
  }
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
      ${view.labels.map((label) => labelBadge(label, labelIssuesPath(loaded, label.title)))}
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
  const view = issuableListViewOf(w.params, base, MERGE_REQUEST_STATES, 'opened')
  const [result, ...counts] = await Promise.all([
    listProjectMergeRequests(w.ctx, loaded, listInput(view, view.state, view.page, MERGE_REQUESTS_PER_PAGE)),
    ...MERGE_REQUEST_STATES.map(async (state) => (await listProjectMergeRequests(w.ctx, loaded, listInput(view, state, 1, 1))).total),
  ])
  const views = await mergeRequestViewsOf(w.ctx, result.rows)
  const tabs = [
    { state: 'opened', label: 'Open', count: counts[0] },
    { state: 'merged', label: 'Merged', count: counts[1] },
    { state: 'closed', label: 'Closed', count: counts[2] },
    { state: 'all', label: 'All', count: counts[3] },
  ]
  const filtered = view.search !== '' || view.labels.length > 0
  const stateWords: Record<string, string> = { opened: 'open ', merged: 'merged ', closed: 'closed ', all: '' }
  const body = html`<h1>Merge requests</h1>
    ${stateTabs(view, tabs, 'Merge request states')} ${searchForm(view, 'merge_request', 'Search or filter results…')}
    ${
      views.length === 0
        ? html`<div class="empty-state no-merge-requests">
            <p>${filtered ? 'No merge requests match your search or filter.' : `There are no ${stateWords[view.state]}merge requests.`}</p>
            <p>Merge requests propose changes from one branch to another: push a branch, then open one through the API.</p>
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

async function loadMergeRequest(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow): Promise<Loaded> {
  const sourceId = row.source_project_id ?? row.project_id
  const [[view], versions, sourceProjects] = await Promise.all([
    mergeRequestViewsOf(w.ctx, [row]),
    listMergeRequestVersions(w.ctx, loaded, row),
    sourceId === row.project_id ? [] : findProjectsByIds(w.ctx.db, [sourceId]),
  ])
  return { view, version: versions[0] ?? null, sourcePath: sourceProjects[0]?.full_path ?? null }
}

function branchLink(projectFullPath: string, branch: string, prefix: string | null): Html {
  return html`<a class="ref-name" href="/${projectFullPath}/-/tree/${encodeRef(branch)}"><code>${prefix ? `${prefix}:` : ''}${branch}</code></a>`
}

function header(loaded: LoadedProject, data: Loaded, tab: Tab, counts: { commits?: number }): Html {
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
      <span class="meta">Merge request !${mr.iid}</span>
    </div>
    <h1 class="issuable-title">${mr.title}</h1>
    <p class="merge-request-branches">${stateLine}</p>
    <nav class="tabs merge-request-tabs" aria-label="Merge request">
      ${tabLink('overview', 'Overview', '', view.userNotesCount)} ${tabLink('commits', 'Commits', '/commits', counts.commits ?? null)}
      ${tabLink('diffs', 'Changes', '/diffs', version?.real_size ?? 0)}
    </nav>`
}

function render(w: WebRequest, loaded: LoadedProject, data: Loaded, tab: Tab, body: Html) {
  const mr = data.view.mergeRequest
  const titles: Record<Tab, string> = { overview: '', commits: 'Commits · ', diffs: 'Changes · ' }
  return renderProjectPage(
    w,
    loaded,
    {
      title: `${titles[tab]}${mr.title} (!${mr.iid})`,
      section: 'merge_requests',
      crumbs: [
        { text: 'Merge requests', href: mergeRequestsPath(loaded) },
        { text: `!${mr.iid}`, href: mergeRequestPath(loaded, mr.iid) },
      ],
    },
    body,
  )
}

async function renderOverview(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow) {
  const [data, description, discussion] = await Promise.all([
    loadMergeRequest(w, loaded, row),
    descriptionOf(w.ctx, loaded, row.description),
    loadDiscussion(w.ctx, loaded, 'MergeRequest', row.iid),
  ])
  const notes = await discussionOf(w.ctx, loaded, discussion)
  const { view } = data
  const body = html`${header(loaded, data, 'overview', {})}
    <div class="issuable-layout">
      <div class="issuable-main">
        ${description}
        ${
          row.state === 'merged' && row.merge_commit_sha
            ? html`<p class="merge-status">
                Merged as
                <a href="${projectPath(loaded, `/-/commit/${row.merge_commit_sha}`)}"><code>${shortCommitId(row.merge_commit_sha)}</code></a>
              </p>`
            : ''
        }
        ${notes}
      </div>
      <aside class="issuable-sidebar" aria-label="Merge request details">
        ${metadataFields(loaded, view)}
      </aside>
    </div>`
  return render(w, loaded, data, 'overview', body)
}

async function renderCommits(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow) {
  const [data, commits] = await Promise.all([loadMergeRequest(w, loaded, row), listMergeRequestCommits(w.ctx, loaded, row)])
  const body = html`${header(loaded, data, 'commits', { commits: commits.length })}
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

async function renderDiffs(w: WebRequest, loaded: LoadedProject, row: MergeRequestRow) {
  const [data, diff] = await Promise.all([loadMergeRequest(w, loaded, row), listMergeRequestDiffs(w.ctx, loaded, row)])
  const head = data.version?.head_commit_sha ?? null
  const changes = await diffSection(diff, {
    mode: diffViewModeOf(textOf(w.params.view)),
    pageUrl: mergeRequestPath(loaded, row.iid, '/diffs'),
    blobUrlOf: (file) => (head && !file.deletedFile ? projectPath(loaded, `/-/blob/${head}/${encodeRef(file.newPath)}`) : null),
    overflowHint: html`Plain diff:
      <a href="/api/v4/projects/${loaded.project.id}/merge_requests/${row.iid}/raw_diffs">raw_diffs</a>.`,
    emptyText: 'No changes between the source and target branches.',
  })
  return render(w, loaded, data, 'diffs', html`${header(loaded, data, 'diffs', {})} ${changes}`)
}

/** The merge request of the path as the caller may see it (GL `read_merge_request`). */
async function findMergeRequestOfPage(w: WebRequest, loaded: LoadedProject): Promise<MergeRequestRow> {
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
