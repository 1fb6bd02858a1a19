import type { Context } from '../../core/context.js'
import type { LabelRow, UserRow } from '../../db/schema.js'
import { html, type Html } from '../../web/html.js'
import { textOf, timeOf } from '../../web/list-page.js'
import type { LoadedProject } from '../access/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { findNoteable, listNotes, type NoteView } from '../notes/index.js'

// What the issue and merge request pages share: state badges, labels, people, Markdown, the discussion, and the
// list pages' tabs, search, label filter and pager (plain links and GET forms, usable without JavaScript).

/** An iid of the path: a small positive number, or null. */
export function iidOf(value: unknown): number | null {
  const text = textOf(value)
  return /^\d{1,10}$/.test(text) && Number(text) >= 1 && Number(text) <= 2147483647 ? Number(text) : null
}

const STATE_NAMES: Record<string, string> = { opened: 'Open', closed: 'Closed', merged: 'Merged', locked: 'Locked' }

/** The state as GitLab's badge shows it: Open, Closed, Merged. */
export function stateBadge(state: string): Html {
  const css = state === 'locked' ? 'opened' : state
  return html`<span class="badge status-${css} issuable-state">${STATE_NAMES[state] ?? state}</span>`
}

/** A person: name linking to their profile, with @username. */
export function userLink(user: Pick<UserRow, 'username' | 'name'>): Html {
  return html`<a class="user-link" href="/${user.username}">${user.name}</a> <span class="note-username">@${user.username}</span>`
}

/** The round initial GitLab shows when there is no avatar picture. */
export function avatar(user: Pick<UserRow, 'username' | 'name'>): Html {
  return html`<span class="avatar" aria-hidden="true">${(user.name || user.username).charAt(0).toUpperCase()}</span>`
}

/** The project's issue list filtered by a label: where Markdown's `~label` references point too. */
export function labelIssuesPath(loaded: LoadedProject, title: string): string {
  return `/${loaded.project.full_path}/-/issues?label_name[]=${encodeURIComponent(title)}`
}

/**
 * A label as a pill with a dot of its colour (an SVG fill: the Content-Security-Policy allows no inline style), its
 * title in the page's own colours so that it reads on any label colour.
 */
export function labelBadge(label: Pick<LabelRow, 'title' | 'color' | 'description'>, href: string | null): Html {
  const inner = html`<svg class="label-dot" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" focusable="false">
      <circle cx="5" cy="5" r="5" fill="${label.color}" /></svg
    ><span class="label-title">${label.title}</span>`
  return href
    ? html`<a class="label-badge" href="${href}" title="${label.description ?? ''}">${inner}</a>`
    : html`<span class="label-badge" title="${label.description ?? ''}">${inner}</span>`
}

/** Markdown (GitLab Flavored) of a description or a note, as the reader may see its references. */
export function markdownOf(ctx: Context, loaded: LoadedProject, text: string | null): Promise<Html> {
  return renderMarkdown(ctx, text, { project: loaded })
}

/** Markdown typed in a form as the page will show it, for the form's Preview button (it works without JavaScript). */
export async function previewBodyOf(ctx: Context, loaded: LoadedProject, text: string): Promise<Html> {
  return text.trim() === ''
    ? html`<p class="muted">Nothing to preview.</p>`
    : html`<div class="markdown">${await markdownOf(ctx, loaded, text)}</div>`
}

/** The preview box a form shows under its text, with an id of its own. */
export function previewSection(id: string, body: Html): Html {
  return html`<section class="markdown-preview" id="${id}" aria-label="Preview">
    <h3>Preview</h3>
    ${body}
  </section>`
}

/** A rendered preview of Markdown typed in a form. */
export async function previewOf(ctx: Context, loaded: LoadedProject, text: string, id: string): Promise<Html> {
  return previewSection(id, await previewBodyOf(ctx, loaded, text))
}

/** A description box: its Markdown, or a muted line when there is none. */
export async function descriptionOf(ctx: Context, loaded: LoadedProject, text: string | null): Promise<Html> {
  if (text === null || text.trim() === '') return html`<p class="muted no-description">No description provided.</p>`
  return html`<div class="markdown description">${await markdownOf(ctx, loaded, text)}</div>`
}

/** The most notes a page shows; GitLab loads more as one scrolls. */
export const MAX_DISCUSSION_NOTES = 1000

/** The notes of an issue or merge request as the caller may read them (internal notes for Reporters and up), oldest first. */
export async function loadDiscussion(ctx: Context, loaded: LoadedProject, type: 'Issue' | 'MergeRequest', iid: number) {
  const target = await findNoteable(ctx, loaded, type, iid)
  const { page, views } = await listNotes(ctx, target, {
    column: 'created_at',
    direction: 'asc',
    kind: null,
    page: 1,
    perPage: MAX_DISCUSSION_NOTES,
  })
  return { views, more: page.hasNext }
}

/** The discussion: comments in boxes, system notes ("added ~1 label", "closed") as lines between them. */
export async function discussionOf(ctx: Context, loaded: LoadedProject, discussion: { views: NoteView[]; more: boolean }): Promise<Html> {
  const bodies = await Promise.all(discussion.views.map((view) => markdownOf(ctx, loaded, view.row.body)))
  const items = discussion.views.map((view, index) => {
    const { row, author } = view
    if (row.system === 1) {
      return html`<li class="note system-note" id="note_${row.id}">
        <span class="system-note-body">${userLink(author)} <span class="markdown inline">${bodies[index]}</span></span>
        <span class="note-time">${timeOf(row.created_at)}</span>
      </li>`
    }
    return html`<li class="note user-note${row.internal === 1 ? ' internal-note' : ''}" id="note_${row.id}">
      ${avatar(author)}
      <article class="note-box" aria-label="Comment by ${author.name}">
        <header>
          <span class="note-author">${userLink(author)}</span>
          <a class="note-time" href="#note_${row.id}">${timeOf(row.created_at)}</a>
          ${row.internal === 1 ? html`<span class="badge internal-badge">Internal note</span>` : ''}
        </header>
        <div class="markdown note-text">${bodies[index]}</div>
      </article>
    </li>`
  })
  return html`<section class="discussion" aria-labelledby="discussion-heading">
    <h2 id="discussion-heading">Activity</h2>
    ${
      items.length === 0
        ? html`<p class="muted no-notes">No comments yet.</p>`
        : html`<ol class="notes">
            ${items}
          </ol>`
    }
    ${discussion.more ? html`<p class="muted">Only the first ${MAX_DISCUSSION_NOTES} notes are shown.</p>` : ''}
  </section>`
}

// ---------------------------------------------------------------- list pages

/** What an issue or merge request list shows: its path, state tab, search text, label filter and page. */
export interface IssuableListView {
  base: string
  state: string
  defaultState: string
  search: string
  labels: string[]
  page: number
  /** Other filters and the order, as query pairs the list's links keep (`milestone_title`, `sort`). */
  extra?: [string, string][]
}

/** The state, search, labels (`label_name[]`, as GitLab's links write it) and page of a list's query. */
export function issuableListViewOf(
  params: Record<string, unknown>,
  base: string,
  states: readonly string[],
  defaultState: string,
): IssuableListView {
  const state = textOf(params.state)
  const labelParam = params['label_name'] ?? params['label_name[]']
  const labels = (Array.isArray(labelParam) ? labelParam : [labelParam]).map(textOf).filter((title) => title !== '')
  const pageText = textOf(params.page)
  return {
    base,
    state: states.includes(state) ? state : defaultState,
    defaultState,
    search: textOf(params.search).trim(),
    labels: [...new Set(labels)].slice(0, 20),
    page: /^\d{1,6}$/.test(pageText) && Number(pageText) > 0 ? Number(pageText) : 1,
  }
}

/** A link to the list with some of its view changed. */
export function listLink(view: IssuableListView, overrides: Partial<Pick<IssuableListView, 'state' | 'labels' | 'page'>>): string {
  const state = overrides.state ?? view.state
  const query = new URLSearchParams()
  if (state !== view.defaultState) query.set('state', state)
  if (view.search) query.set('search', view.search)
  for (const label of overrides.labels ?? view.labels) query.append('label_name[]', label)
  for (const [name, value] of view.extra ?? []) query.append(name, value)
  const page = overrides.page ?? 1
  if (page > 1) query.set('page', String(page))
  const text = query.toString()
  return text ? `${view.base}?${text}` : view.base
}

/** The state tabs with their counts (GitLab's "Open 3 · Merged 1 · Closed 0 · All 4"). */
export function stateTabs(view: IssuableListView, tabs: { state: string; label: string; count: number | null }[], label: string): Html {
  return html`<nav class="tabs state-tabs" aria-label="${label}">
    ${tabs.map(
      (tab) =>
        html`<a href="${listLink(view, { state: tab.state })}" ${tab.state === view.state ? html`aria-current="page"` : ''}
          >${tab.label} <span class="badge count">${tab.count === null ? '10000+' : tab.count}</span></a
        >`,
    )}
  </nav>`
}

/** The search form (a GET form keeping the state and labels) and the labels filtered by, each removable. */
export function searchForm(view: IssuableListView, kind: string, placeholder: string): Html {
  return html`<form class="list-search" method="get" action="${view.base}" role="search">
      ${view.state !== view.defaultState ? html`<input type="hidden" name="state" value="${view.state}" />` : ''}
      ${view.labels.map((title) => html`<input type="hidden" name="label_name[]" value="${title}" />`)}
      <label class="visually-hidden" for="${kind}_search">Search</label>
      <input type="search" id="${kind}_search" name="search" value="${view.search}" placeholder="${placeholder}" />
      <button type="submit">Search</button>
    </form>
    ${
      view.labels.length > 0
        ? html`<p class="active-filters">
            Label:
            ${view.labels.map(
              (title) =>
                html`<span class="filter-token"
                  >${title}
                  <a href="${listLink(view, { labels: view.labels.filter((other) => other !== title) })}" aria-label="Remove label filter ${title}"
                    >×</a
                  ></span
                > `,
            )}
          </p>`
        : ''
    }`
}

/** Previous and next links with "Page 2 of 5". */
export function listPager(view: IssuableListView, perPage: number, total: number | null, hasNext: boolean): Html {
  const pages = total === null ? null : Math.max(1, Math.ceil(total / perPage))
  if (view.page === 1 && !hasNext) return html``
  return html`<nav class="pagination" aria-label="Pages">
    ${view.page > 1 ? html`<a class="button" rel="prev" href="${listLink(view, { page: view.page - 1 })}">Previous</a>` : ''}
    <span class="page-info">Page ${view.page}${pages === null ? '' : ` of ${pages}`}</span>
    ${hasNext ? html`<a class="button" rel="next" href="${listLink(view, { page: view.page + 1 })}">Next</a>` : ''}
  </nav>`
}

/** One field of an issue's or merge request's sidebar: its label, then its value or "None". */
export function sidebarField(label: string, value: Html | string, className: string): Html {
  return html`<div class="issuable-field ${className}">
    <h3>${label}</h3>
    <div>${value === '' ? html`<span class="none">None</span>` : value}</div>
  </div>`
}

/** The sidebar fields of issues and merge requests: assignees, reviewers, labels (linking the issues they label), milestone. */
export function metadataFields(
  loaded: LoadedProject,
  view: {
    assignees: readonly Pick<UserRow, 'username' | 'name'>[]
    /** Merge requests only. */
    reviewers?: readonly { user: Pick<UserRow, 'username' | 'name'> }[]
    labels: readonly Pick<LabelRow, 'title' | 'color' | 'description'>[]
    milestone: { iid: number; title: string } | null
  },
): Html {
  const people = (users: readonly Pick<UserRow, 'username' | 'name'>[]) =>
    users.length === 0 ? '' : html`<ul class="plain">${users.map((user) => html`<li>${userLink(user)}</li>`)}</ul>`
  return html`${sidebarField('Assignees', people(view.assignees), 'assignees')}
    ${view.reviewers ? sidebarField('Reviewers', people(view.reviewers.map((reviewer) => reviewer.user)), 'reviewers') : ''}
    ${sidebarField(
      'Labels',
      view.labels.length === 0 ? '' : html`${view.labels.map((label) => labelBadge(label, labelIssuesPath(loaded, label.title)))}`,
      'labels',
    )}
    ${sidebarField(
      'Milestone',
      view.milestone ? html`<a href="/${loaded.project.full_path}/-/milestones/${view.milestone.iid}">${view.milestone.title}</a>` : '',
      'milestone',
    )}`
}
