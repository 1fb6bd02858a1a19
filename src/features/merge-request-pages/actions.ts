import { ActionNotAllowed, BadRequest, Conflict, DomainError, Forbidden, NotFound, Unauthorized } from '../../core/errors.js'
import { refusalOf } from '../../web/form-errors.js'
import type { Html } from '../../web/html.js'
import { textOf } from '../../web/list-page.js'
import { canCreateNote, canMerge, type LoadedProject } from '../access/index.js'
import { previewBodyOf } from '../issuable-pages/index.js'
import { touchIssuable } from '../issuables/index.js'
import {
  approveMergeRequest,
  diffNoteThread,
  mergeMergeRequest,
  readMergeRequestNoteCommands,
  requestRebase,
  unapproveMergeRequest,
  updateMergeRequest,
  type DiffPositionInput,
} from '../merge-requests/index.js'
import {
  createNoteWithCommands,
  findNoteable,
  newDiscussionId,
  replyToDiscussion,
  resolveDiscussion,
  type NoteThread,
} from '../notes/index.js'
import { projectPage, projectPageRoutes } from '../projects/index.js'
import type { WebRequest, WebRouter } from '../sessions/index.js'
import { spamRequestOf } from '../spam/index.js'
import { findMergeRequestOfPage, renderDiffs, renderOverview } from './pages.js'
import { mergeRequestPath } from './paths.js'

// What the merge request page's forms do (GL Projects::NotesController#create, Projects::DiscussionsController#resolve
// and #unresolve, Projects::MergeRequestsController#merge, rebase, approve and unapprove): each through the API's own service,
// refused in its words.

function hashOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** The last value a field sent (a Rails check box sends a hidden "0" before its "1"). */
function lastOf(value: unknown): string {
  return Array.isArray(value) ? textOf(value[value.length - 1]) : textOf(value)
}

function lineOf(value: unknown): number | null {
  const text = textOf(value)
  return /^\d{1,9}$/.test(text) ? Number(text) : null
}

/** `note[position][...]`, as the changes tab's line form sends it; null without one. */
function positionOf(value: unknown): DiffPositionInput | null {
  const position = hashOf(value)
  if (Object.keys(position).length === 0) return null
  return {
    baseSha: textOf(position.base_sha) || null,
    startSha: textOf(position.start_sha),
    headSha: textOf(position.head_sha),
    positionType: textOf(position.position_type) || 'text',
    oldPath: textOf(position.old_path) || undefined,
    newPath: textOf(position.new_path) || undefined,
    oldLine: lineOf(position.old_line),
    newLine: lineOf(position.new_line),
  }
}

/** Back to the tab the form was on, at `anchor`. */
function backTo(w: WebRequest, loaded: LoadedProject, iid: number, anchor: string) {
  if (textOf(w.params.return_to) === 'diffs') {
    const view = textOf(w.params.view)
    return w.redirect(`${mergeRequestPath(loaded, iid, `/diffs${view === 'parallel' ? '?view=parallel' : ''}`)}${anchor}`)
  }
  return w.redirect(`${mergeRequestPath(loaded, iid)}${anchor}`)
}

/**
 * POST /-/merge_requests/<iid>/notes: a comment, a new thread ("Start thread"), a reply, or a thread on a diff line
 * with its position, running its quick actions; Preview shows the form again with the text rendered. Refused ones
 * come back on their tab with what was typed; a caller who may not comment gets the 404 page.
 */
async function postNote(w: WebRequest, loaded: LoadedProject) {
  const row = await findMergeRequestOfPage(w, loaded)
  const target = await findNoteable(w.ctx, loaded, 'MergeRequest', row.iid)
  if (!w.ctx.caller.user || !canCreateNote(loaded.access, loaded.project, target)) return w.notFound()
  const note = hashOf(w.params.note)
  const body = textOf(note.note)
  const position = positionOf(note.position)
  const replyTo = textOf(w.params.in_reply_to_discussion_id)
  const form = replyTo ? `reply:${replyTo}` : position ? `line:${textOf(w.params.line_code)}` : 'comment'
  const again = (errors: string[], preview?: Html) => {
    const state = { note: { form, body, errors, preview }, status: errors.length > 0 ? 422 : 200 }
    return textOf(w.params.return_to) === 'diffs' ? renderDiffs(w, loaded, row, state) : renderOverview(w, loaded, row, state)
  }
  if (textOf(w.params.button) === 'preview') return again([], await previewBodyOf(w.ctx, loaded, body))
  // GL Note validation: `note` can't be blank.
  if (body.trim() === '') return again(["Note can't be blank"])
  const spam = spamRequestOf(w.request.headers, w.request.ip)
  try {
    if (replyTo) {
      const reply = await replyToDiscussion(w.ctx, target, replyTo, { body, internal: false, createdAt: undefined, spam }, touchIssuable)
      return backTo(w, loaded, row.iid, `#note_${reply.row.id}`)
    }
    let thread: NoteThread | undefined
    if (position) {
      try {
        thread = await diffNoteThread(w.ctx, loaded, row, position)
      } catch (error) {
        if (error instanceof BadRequest)
          return again(['The line is no longer in the changes: reload them to comment on the latest version.'])
        throw error
      }
    } else if (textOf(note.type) === 'DiscussionNote') {
      thread = { type: 'DiscussionNote', discussionId: newDiscussionId(), position: null, lineCode: null }
    }
    // The comment's quick actions run as the API runs them; what they did is the next page's notice.
    const created = await createNoteWithCommands(
      w.ctx,
      target,
      { body, internal: false, createdAt: undefined, spam, thread },
      touchIssuable,
      readMergeRequestNoteCommands,
      { mergeRequestDiffHeadSha: textOf(w.params.merge_request_diff_head_sha) || undefined },
    )
    if (created.summary.length > 0) await w.flash('notice', created.summary.join(' '))
    return backTo(w, loaded, row.iid, created.view ? `#note_${created.view.row.id}` : '')
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    if (error instanceof Forbidden) return w.notFound()
    return again(refusalOf(error).messages)
  }
}

/** POST (resolve) or DELETE (unresolve) /-/merge_requests/<iid>/discussions/<id>/resolve. */
async function resolveThread(w: WebRequest, loaded: LoadedProject, resolved: boolean) {
  const row = await findMergeRequestOfPage(w, loaded)
  const target = await findNoteable(w.ctx, loaded, 'MergeRequest', row.iid)
  const id = textOf(w.params.discussion_id)
  try {
    await resolveDiscussion(w.ctx, target, id, resolved, row.author_id)
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    throw error
  }
  return backTo(w, loaded, row.iid, `#discussion_${id}`)
}

/**
 * POST /-/merge_requests/<iid>/merge: merges with the project's merge method, the squash choice and the messages as
 * edited, unless the source branch moved since the page was shown (`sha`). Those who may not merge get the 404 page
 * (GL `access_denied!`); a merge that cannot happen comes back with why, at the top of the page.
 */
async function merge(w: WebRequest, loaded: LoadedProject) {
  const row = await findMergeRequestOfPage(w, loaded)
  if (!w.ctx.caller.user || !canMerge(loaded.access, loaded.project)) return w.notFound()
  const squashOption = loaded.project.squash_option
  const squash = lastOf(w.params.squash) === '1'
  const mergeMessage = textOf(w.params.commit_message)
  const squashMessage = textOf(w.params.squash_commit_message)
  try {
    // GL MergeRequestsController#merge!: the squash box is kept on the merge request where the project leaves it to it.
    if (
      (squashOption === 'default_on' || squashOption === 'default_off') &&
      squash !== (row.squash === 1) &&
      w.params.squash !== undefined
    ) {
      await updateMergeRequest(w.ctx, loaded, row.iid, { squash })
    }
    await mergeMergeRequest(w.ctx, loaded, row.iid, {
      mergeCommitMessage: mergeMessage.trim() === '' ? undefined : mergeMessage,
      squashCommitMessage: squashMessage.trim() === '' ? undefined : squashMessage,
      shouldRemoveSourceBranch:
        w.params.should_remove_source_branch === undefined ? undefined : lastOf(w.params.should_remove_source_branch) === '1',
      autoMerge: false,
      sha: textOf(w.params.sha) || undefined,
    })
  } catch (error) {
    if (!(error instanceof DomainError) || error instanceof NotFound) throw error
    if (error instanceof Unauthorized || error instanceof Forbidden) return w.notFound()
    if (error instanceof Conflict) {
      await w.flash('alert', 'New changes were added to this merge request. Review them before merging.')
    } else if (error instanceof ActionNotAllowed) {
      await w.flash('alert', 'Merge failed: the merge request cannot be merged. Try again.')
    } else {
      await w.flash('alert', `Merge failed: ${error.message}. Try again.`)
    }
  }
  return w.redirect(mergeRequestPath(loaded, row.iid))
}

/**
 * POST /-/merge_requests/<iid>/approve and /unapprove: back to the merge request. Those who may not approve get the 404
 * page; approving twice, or revoking an approval that is not there, changes nothing.
 */
async function changeApproval(w: WebRequest, loaded: LoadedProject, approve: boolean) {
  const row = await findMergeRequestOfPage(w, loaded)
  if (!w.ctx.caller.user) return w.notFound()
  try {
    if (approve) await approveMergeRequest(w.ctx, loaded, row, {})
    else await unapproveMergeRequest(w.ctx, loaded, row)
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    if (!(error instanceof Unauthorized) && !(error instanceof NotFound)) throw error
  }
  return w.redirect(mergeRequestPath(loaded, row.iid))
}

/**
 * POST /-/merge_requests/<iid>/rebase (GL Projects::MergeRequestsController#rebase): queues the rebase and comes back to
 * the merge request, whose widget says "Rebase in progress" until it ends. Those who may not push to the source branch
 * get the 404 page; a rebase already under way is left to finish.
 */
async function rebase(w: WebRequest, loaded: LoadedProject) {
  const row = await findMergeRequestOfPage(w, loaded)
  if (!w.ctx.caller.user) return w.notFound()
  try {
    await requestRebase(w.ctx, loaded, row, { skipCi: false })
  } catch (error) {
    if (error instanceof Forbidden) return w.notFound()
    if (!(error instanceof Conflict)) throw error
  }
  return w.redirect(mergeRequestPath(loaded, row.iid))
}

export function registerMergeRequestActions(web: WebRouter) {
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/notes')) web.post(url, projectPage(postNote))
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/discussions/:discussion_id/resolve')) {
    web.post(
      url,
      projectPage((w, loaded) => resolveThread(w, loaded, true)),
    )
    web.delete(
      url,
      projectPage((w, loaded) => resolveThread(w, loaded, false)),
    )
  }
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/merge')) web.post(url, projectPage(merge))
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/rebase')) web.post(url, projectPage(rebase))
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/approve')) {
    web.post(
      url,
      projectPage((w, loaded) => changeApproval(w, loaded, true)),
    )
  }
  for (const url of projectPageRoutes('/-/merge_requests/:merge_request_iid/unapprove')) {
    web.post(
      url,
      projectPage((w, loaded) => changeApproval(w, loaded, false)),
    )
  }
}
