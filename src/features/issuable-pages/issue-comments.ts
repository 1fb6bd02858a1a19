import { DomainError, NotFound } from '../../core/errors.js'
import type { IssueRow } from '../../db/schema.js'
import { errorList, refusalOf } from '../../web/form-errors.js'
import { csrfField, html, type Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canCreateNote, canReadInternalNotes, canUpdateIssue, findIssueAssigneeIds, type LoadedProject } from '../access/index.js'
import { touchIssuable } from '../issuables/index.js'
import { findProjectIssueById, readIssueNoteCommands, updateIssue } from '../issues/index.js'
import { createNoteWithCommands, findNoteable } from '../notes/index.js'
import { projectPath } from '../projects/index.js'
import { SIGN_IN_PATH, type WebRequest } from '../sessions/index.js'
import { spamRequestOf } from '../spam/index.js'
import { previewOf } from './shared.js'
import { issuePath, renderIssue } from './issues.js'

// Commenting on an issue (GL Projects::NotesController#create at `/<project>/notes?target_type=issue&target_id=<id>`):
// a Markdown comment with a Preview that works without JavaScript, quick actions run as the API runs them, and the
// form's Close issue / Reopen issue button (with a comment first when one was written).

/** What the comment form shows again: the text typed, its preview, and why it was refused. */
export interface CommentState {
  body: string
  internal: boolean
  preview: Html | null
  errors: string[]
}

/** Where the comment form posts (GL `create_note_path`). */
function notesPath(loaded: LoadedProject, issue: IssueRow): string {
  return projectPath(loaded, `/notes?target_type=issue&target_id=${issue.id}`)
}

/** The comment form, or what a visitor who may not comment reads instead. */
export function commentForm(
  loaded: LoadedProject,
  issue: IssueRow,
  options: { signedIn: boolean; mayComment: boolean; mayUpdate: boolean; csrfToken: string | null; state: CommentState | null },
): Html {
  if (!options.signedIn) {
    return html`<p class="comment-signed-out muted">Please <a href="${SIGN_IN_PATH}">sign in</a> to reply</p>`
  }
  if (!options.mayComment) {
    // GitLab's words for an archived project and a locked discussion.
    const reason =
      loaded.project.archived === 1
        ? 'This project is archived and cannot be commented on.'
        : 'The discussion in this issue is locked. Only project members can comment.'
    return html`<p class="comment-locked muted">${reason}</p>`
  }
  const state = options.state
  const stateButton = issue.state === 'closed' ? { value: 'reopen', label: 'Reopen issue' } : { value: 'close', label: 'Close issue' }
  return html`<form method="post" action="${notesPath(loaded, issue)}" class="new-note" id="new-note" aria-label="Add a comment">
    ${csrfField(options.csrfToken ?? '')} ${errorList(state?.errors ?? [])}
    <label for="note_note">Comment</label>
    <textarea id="note_note" name="note[note]" rows="5" placeholder="Write a comment&hellip;" aria-describedby="note_help">${state?.body ?? ''}</textarea>
    <p class="help" id="note_help">
      Supports Markdown. Quick actions such as <code>/label ~bug</code>, <code>/assign me</code>, <code>/due tomorrow</code> or
      <code>/close</code> run when you comment.
    </p>
    ${state?.preview ?? ''}
    ${
      canReadInternalNotes(loaded.access)
        ? html`<div class="checkbox-field">
            <input type="checkbox" id="note_internal" name="note[internal]" value="1" ${state?.internal ? html`checked` : ''} />
            <label class="checkbox-label" for="note_internal">Make this an internal note</label>
          </div>`
        : ''
    }
    <div class="button-row">
      <button type="submit" class="primary" name="button" value="comment">Comment</button>
      <button type="submit" name="button" value="preview">Preview</button>
      ${options.mayUpdate ? html`<button type="submit" name="button" value="${stateButton.value}">${stateButton.label}</button>` : ''}
    </div>
  </form>`
}

function noteFields(params: Record<string, unknown>): { body: string; internal: boolean } {
  const note = params.note
  const fields = note && typeof note === 'object' && !Array.isArray(note) ? (note as Record<string, unknown>) : {}
  return { body: textOf(fields.note), internal: textOf(fields.internal) === '1' }
}

/**
 * POST /<project>/notes?target_type=issue&target_id=<id>: comments (running its quick actions, whose messages come
 * back as the next page's notice), previews, or closes and reopens with the comment first. An issue the caller may not
 * see, or an action they may not take, is the 404 page.
 */
export async function postIssueComment(w: WebRequest, loaded: LoadedProject) {
  if (textOf(w.params.target_type) !== 'issue' || !/^\d{1,10}$/.test(textOf(w.params.target_id))) return w.notFound()
  const issue = await findProjectIssueById(w.ctx, loaded, Number(textOf(w.params.target_id)))
  const target = await findNoteable(w.ctx, loaded, 'Issue', issue.iid)
  const { body, internal } = noteFields(w.params)
  const button = textOf(w.params.button)
  const stateEvent = button === 'close' ? 'close' : button === 'reopen' ? 'reopen' : null
  const user = w.ctx.caller.user
  const mayComment = user !== null && canCreateNote(loaded.access, loaded.project, target)
  const mayUpdate = user !== null && canUpdateIssue(loaded.access, loaded.project, issue, await findIssueAssigneeIds(w.ctx.db, issue.id))
  if (stateEvent ? !mayUpdate || (body.trim() !== '' && !mayComment) : !mayComment) return w.notFound()
  const again = (errors: string[], preview: Html | null = null) =>
    renderIssue(w, loaded, issue, { comment: { body, internal, preview, errors }, status: errors.length > 0 ? 422 : 200 })
  if (button === 'preview') return again([], await previewOf(w.ctx, loaded, body, 'note_preview'))
  if (!stateEvent && body.trim() === '') return again(["Note can't be blank"])
  const spam = spamRequestOf(w.request.headers, w.request.ip)
  const notices: string[] = []
  let anchor = ''
  try {
    if (body.trim() !== '') {
      const created = await createNoteWithCommands(
        w.ctx,
        target,
        { body, internal, createdAt: undefined, spam },
        touchIssuable,
        readIssueNoteCommands,
      )
      if (created.view) anchor = `#note_${created.view.row.id}`
      notices.push(...created.summary)
    }
    if (stateEvent) {
      const before = await findProjectIssueById(w.ctx, loaded, issue.id)
      const updated = await updateIssue(w.ctx, loaded, issue.iid, { stateEvent }, spam)
      if (updated.issue.state !== before.state) notices.push(stateEvent === 'close' ? 'Closed this issue.' : 'Reopened this issue.')
    }
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    return again(refusalOf(error).messages)
  }
  if (notices.length > 0) await w.flash('notice', notices.join(' '))
  return w.redirect(`${issuePath(loaded, issue)}${anchor}`)
}
