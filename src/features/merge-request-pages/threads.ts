import type { Context } from '../../core/context.js'
import type { MergeRequestDiffRow, MergeRequestRow } from '../../db/schema.js'
import { errorList } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { timeOf } from '../../web/list-page.js'
import { canCreateNote, canResolveDiscussion, type LoadedProject } from '../access/index.js'
import { fileHashOf, type DiffLineRef } from '../diff-view/index.js'
import { avatar, previewSection, userLink } from '../issuable-pages/index.js'
import { renderMarkdown } from '../markdown/index.js'
import { findNoteable, isResolvable, isResolved, listDiscussions, type DiscussionView, type LoadedNoteable } from '../notes/index.js'
import type { FileDiff } from '../repositories/index.js'
import { SIGN_IN_PATH } from '../sessions/index.js'
import { mergeRequestPath } from './paths.js'

// A merge request's threads on its pages: the overview's activity (comments, threads, threads on diff lines and system
// notes, oldest first) with a comment form, and under each line of the changes tab its threads and, when asked for, a
// form to start one. Every form is a plain POST; a reply form opens from a <details>, so nothing needs JavaScript.

/** Which form a refused submission came from, with what was typed and why it was refused. */
export interface NoteFormState {
  /** 'comment', `reply:<discussion id>` or `line:<line code>`. */
  form: string
  body: string
  errors: string[]
  /** The text as the page will show it, after Preview. */
  preview?: Html
}

/** The threads of a merge request as the caller may read them, and what the caller may do with them. */
export interface Threads {
  target: LoadedNoteable
  discussions: DiscussionView[]
  bodies: Map<number, Html>
  mayComment: boolean
  mayResolve: boolean
  signedIn: boolean
}

/** A DiffNote thread's position, as stored. */
interface Position {
  head_sha: string
  base_sha: string | null
  start_sha: string
  old_path: string
  new_path: string
  old_line: number | null
  new_line: number | null
}

export function positionOf(discussion: DiscussionView): Position | null {
  const first = discussion.notes[0].row
  if (first.type !== 'DiffNote' || first.position === null) return null
  try {
    return JSON.parse(first.position) as Position
  } catch {
    return null
  }
}

/** Loads the threads and renders every note's Markdown once. */
export async function loadThreads(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<Threads> {
  const target = await findNoteable(ctx, loaded, 'MergeRequest', row.iid)
  const discussions = await listDiscussions(ctx, target)
  const notes = discussions.flatMap((discussion) => discussion.notes)
  const rendered = await Promise.all(notes.map((view) => renderMarkdown(ctx, view.row.body, { project: loaded })))
  const signedIn = ctx.caller.user !== null
  return {
    target,
    discussions,
    bodies: new Map(notes.map((view, index) => [view.row.id, rendered[index]])),
    mayComment: signedIn && canCreateNote(loaded.access, loaded.project, target),
    mayResolve: signedIn && canResolveDiscussion(loaded.access, loaded.project, row.author_id),
    signedIn,
  }
}

/** Where the page's forms post: comments, replies and threads on lines. */
export function notesPath(loaded: LoadedProject, row: MergeRequestRow): string {
  return mergeRequestPath(loaded, row.iid, '/notes')
}

/** Where the changes tab is, keeping its view. */
export function diffsPath(loaded: LoadedProject, row: MergeRequestRow, view: string, query = ''): string {
  const params = new URLSearchParams(query)
  if (view === 'parallel') params.set('view', 'parallel')
  const text = params.toString()
  return mergeRequestPath(loaded, row.iid, `/diffs${text ? `?${text}` : ''}`)
}

/** What a form posted from the changes tab carries to come back to it. */
function returnFields(returnTo: { tab: 'overview' | 'diffs'; view: string }): Html {
  return returnTo.tab === 'diffs'
    ? html`<input type="hidden" name="return_to" value="diffs" /><input type="hidden" name="view" value="${returnTo.view}" />`
    : html``
}

function noteBox(threads: Threads, view: DiscussionView['notes'][number]): Html {
  const { row, author } = view
  return html`<li class="note user-note${row.internal === 1 ? ' internal-note' : ''}" id="note_${row.id}">
    ${avatar(author)}
    <article class="note-box" aria-label="Comment by ${author.name}">
      <header>
        <span class="note-author">${userLink(author)}</span>
        <a class="note-time" href="#note_${row.id}">${timeOf(row.created_at)}</a>
        ${row.internal === 1 ? html`<span class="badge internal-badge">Internal note</span>` : ''}
      </header>
      <div class="markdown note-text">${threads.bodies.get(row.id) ?? ''}</div>
    </article>
  </li>`
}

function systemNote(threads: Threads, view: DiscussionView['notes'][number]): Html {
  const { row, author } = view
  return html`<li class="note system-note" id="note_${row.id}">
    <span class="system-note-body">${userLink(author)} <span class="markdown inline">${threads.bodies.get(row.id) ?? ''}</span></span>
    <span class="note-time">${timeOf(row.created_at)}</span>
  </li>`
}

/** The Preview button: the form comes back with the text rendered under it, without JavaScript. */
const PREVIEW_BUTTON = html`<button type="submit" name="button" value="preview">Preview</button>`

/** A textarea form: a new comment, a reply or a thread on a line. */
function noteForm(options: {
  action: string
  csrfToken: string
  id: string
  label: string
  state: NoteFormState | null
  hidden: Html
  buttons: Html
  autofocus?: boolean
}): Html {
  const { state } = options
  return html`<form method="post" action="${options.action}" class="mr-note-form" id="${options.id}_form">
    ${csrfField(options.csrfToken)} ${options.hidden} ${errorList(state?.errors ?? [])}
    <label for="${options.id}">${options.label}</label>
    <textarea id="${options.id}" name="note[note]" rows="4" placeholder="Write a comment&hellip;" ${options.autofocus ? html`autofocus` : ''}>
${state?.body ?? ''}</textarea
    >
    ${state?.preview ? previewSection(`${options.id}_preview`, state.preview) : ''}
    <div class="button-row">${options.buttons}</div>
  </form>`
}

function replyForm(
  threads: Threads,
  loaded: LoadedProject,
  row: MergeRequestRow,
  discussion: DiscussionView,
  options: { csrfToken: string; state: NoteFormState | null; returnTo: { tab: 'overview' | 'diffs'; view: string }; idSuffix: string },
): Html {
  if (!threads.mayComment) return html``
  const key = `reply:${discussion.id}`
  const state = options.state?.form === key ? options.state : null
  const id = `reply_${discussion.id.slice(0, 12)}${options.idSuffix}`
  return html`<details class="mr-reply" ${state ? html`open` : ''}>
    <summary class="button small">Reply</summary>
    ${noteForm({
      action: notesPath(loaded, row),
      csrfToken: options.csrfToken,
      id,
      label: 'Reply',
      state,
      hidden: html`<input type="hidden" name="in_reply_to_discussion_id" value="${discussion.id}" />${returnFields(options.returnTo)}`,
      buttons: html`<button type="submit" class="primary">Reply</button> ${PREVIEW_BUTTON}`,
    })}
  </details>`
}

function resolveForm(
  threads: Threads,
  loaded: LoadedProject,
  row: MergeRequestRow,
  discussion: DiscussionView,
  options: { csrfToken: string; returnTo: { tab: 'overview' | 'diffs'; view: string } },
): Html {
  if (!threads.mayResolve || !discussion.notes.some((view) => isResolvable(view.row))) return html``
  const resolved = isResolved(discussion)
  return html`<form method="post" action="${mergeRequestPath(loaded, row.iid, `/discussions/${discussion.id}/resolve`)}" class="inline">
    ${csrfField(options.csrfToken)} ${resolved ? html`<input type="hidden" name="_method" value="delete" />` : ''}
    ${returnFields(options.returnTo)}
    <button type="submit" class="small">${resolved ? 'Unresolve thread' : 'Resolve thread'}</button>
  </form>`
}

/** Who resolved a thread, in GitLab's words. */
function resolvedLine(discussion: DiscussionView): Html {
  if (!isResolved(discussion)) return html``
  const last = discussion.notes.filter((view) => view.resolvedBy !== null).at(-1)
  return html`<span class="badge status-resolved">Resolved</span>
    ${last?.resolvedBy ? html`<span class="muted">Resolved by ${last.resolvedBy.name}</span>` : ''}`
}

/** A thread: its notes, whether it is resolved, a Resolve button and a Reply form. */
export function threadHtml(
  threads: Threads,
  loaded: LoadedProject,
  row: MergeRequestRow,
  discussion: DiscussionView,
  options: {
    csrfToken: string
    state: NoteFormState | null
    returnTo: { tab: 'overview' | 'diffs'; view: string }
    /** Where the thread's line is, for threads shown in the overview. */
    context: Html | null
    idSuffix?: string
  },
): Html {
  const idSuffix = options.idSuffix ?? ''
  return html`<div class="mr-thread${isResolved(discussion) ? ' resolved' : ''}" id="discussion_${discussion.id}${idSuffix}">
    ${options.context ? html`<header class="mr-thread-context">${options.context}</header>` : ''}
    <ol class="notes">
      ${discussion.notes.map((view) => (view.row.system === 1 ? systemNote(threads, view) : noteBox(threads, view)))}
    </ol>
    <div class="mr-thread-actions">
      ${resolvedLine(discussion)} ${resolveForm(threads, loaded, row, discussion, options)}
      ${replyForm(threads, loaded, row, discussion, { ...options, idSuffix })}
    </div>
  </div>`
}

/** "started a thread on src/app.ts, line 5", linking to the line in the changes tab. */
function diffContext(loaded: LoadedProject, row: MergeRequestRow, discussion: DiscussionView, latestHead: string | null): Html | null {
  const position = positionOf(discussion)
  if (!position) return null
  const line = position.new_line !== null ? `line ${position.new_line}` : `old line ${position.old_line}`
  const outdated = latestHead !== null && position.head_sha !== latestHead
  return html`${userLink(discussion.notes[0].author)} started a thread on
    <a href="${mergeRequestPath(loaded, row.iid, '/diffs')}${outdated ? '' : `#discussion_${discussion.id}`}"
      ><code>${position.new_path || position.old_path}</code>, ${line}</a
    >
    ${outdated ? html`<span class="badge">Outdated</span>` : ''}`
}

/** The overview's activity: comments, threads (with where they are for those on diff lines) and system notes. */
export function activitySection(
  threads: Threads,
  loaded: LoadedProject,
  row: MergeRequestRow,
  options: { csrfToken: string; state: NoteFormState | null; latestHead: string | null },
): Html {
  const returnTo = { tab: 'overview' as const, view: '' }
  const items = threads.discussions.map((discussion) => {
    const [first] = discussion.notes
    if (discussion.individualNote && first.row.system === 1) return systemNote(threads, first)
    if (discussion.individualNote) return noteBox(threads, first)
    return html`<li class="note thread-note">
      ${threadHtml(threads, loaded, row, discussion, {
        csrfToken: options.csrfToken,
        state: options.state,
        returnTo,
        context: diffContext(loaded, row, discussion, options.latestHead),
      })}
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
    ${commentForm(threads, loaded, row, options)}
  </section>`
}

function commentForm(
  threads: Threads,
  loaded: LoadedProject,
  row: MergeRequestRow,
  options: { csrfToken: string; state: NoteFormState | null; latestHead: string | null },
): Html {
  if (!threads.signedIn) return html`<p class="mr-comment-signed-out muted">Please <a href="${SIGN_IN_PATH}">sign in</a> to reply</p>`
  if (!threads.mayComment) {
    return html`<p class="mr-comment-signed-out muted">
      ${row.discussion_locked === 1 ? 'The discussion in this merge request is locked. Only project members can comment.' : ''}
    </p>`
  }
  const state = options.state?.form === 'comment' ? options.state : null
  return html`<div class="mr-new-note">
    ${noteForm({
      action: notesPath(loaded, row),
      csrfToken: options.csrfToken,
      id: 'note_note',
      label: 'Comment',
      state,
      // GL notes form: /merge merges only the head the page showed.
      hidden: options.latestHead ? html`<input type="hidden" name="merge_request_diff_head_sha" value="${options.latestHead}" />` : html``,
      buttons: html`<button type="submit" class="primary">Comment</button>
        <button type="submit" name="note[type]" value="DiscussionNote">Start thread</button> ${PREVIEW_BUTTON}`,
    })}
    <p class="help">
      Markdown is supported. A thread can be resolved; a comment cannot. Quick actions such as <code>/label ~bug</code>,
      <code>/assign_reviewer @user</code>, <code>/draft</code>, <code>/approve</code> or <code>/merge</code> run when you comment.
    </p>
  </div>`
}

/** The threads on the latest version's lines, by GitLab line code. */
export function threadsByLine(threads: Threads, version: MergeRequestDiffRow | null): Map<string, DiscussionView[]> {
  const byLine = new Map<string, DiscussionView[]>()
  if (!version) return byLine
  for (const discussion of threads.discussions) {
    const position = positionOf(discussion)
    const code = discussion.notes[0].row.line_code
    if (!position || !code || position.head_sha !== version.head_commit_sha) continue
    byLine.set(code, [...(byLine.get(code) ?? []), discussion])
  }
  return byLine
}

/** The form that starts a thread on a line: its position as hidden fields, GitLab's position names. */
export function lineNoteForm(
  loaded: LoadedProject,
  row: MergeRequestRow,
  version: MergeRequestDiffRow,
  file: FileDiff,
  line: DiffLineRef,
  options: { csrfToken: string; state: NoteFormState | null; view: string; idSuffix: string },
): Html {
  const state = options.state?.form === `line:${line.lineCode}` ? options.state : null
  const which = line.kind === 'removed' ? `old line ${line.oldLine}` : `line ${line.newLine}`
  const field = (name: string, value: string | number | null) =>
    html`<input type="hidden" name="note[position][${name}]" value="${value === null ? '' : String(value)}" />`
  return html`<div class="mr-line-form" id="line_form_${line.lineCode}${options.idSuffix}">
    ${noteForm({
      action: notesPath(loaded, row),
      csrfToken: options.csrfToken,
      id: `line_note_${line.lineCode}${options.idSuffix}`,
      label: `Comment on ${file.newPath}, ${which}`,
      state,
      autofocus: options.idSuffix === '',
      hidden: html`${field('base_sha', version.base_commit_sha)}${field('start_sha', version.start_commit_sha)}
        ${field('head_sha', version.head_commit_sha)}${field('position_type', 'text')}${field('old_path', file.oldPath)}
        ${field('new_path', file.newPath)}${field('old_line', line.oldLine)}${field('new_line', line.newLine)}
        <input type="hidden" name="line_code" value="${line.lineCode}" />${returnFields({ tab: 'diffs', view: options.view })}`,
      buttons: html`<button type="submit" class="primary">Start a thread</button> ${PREVIEW_BUTTON}
        <a class="button" href="${diffsPath(loaded, row, options.view)}#${fileHashOf(file)}">Cancel</a>`,
    })}
  </div>`
}
