import type { Db } from '../../db/index.js'
import type { NoteRow } from '../../db/schema.js'
import { deleteNoteRowsOf, hasSystemNoteRow, hasUnresolvedThreadRows, insertNote, insertNotes, selectAlertNoteRows } from './store.js'
import { newDiscussionId } from './thread-ids.js'

export { presentNote, presentNoteRow } from './present.js'
export { DiffPositionJson, DiscussionJson, NoteJson } from './schemas.js'

/** What a note is attached to. */
export type Noteable = { type: 'Issue'; id: number; projectId: number } | { type: 'MergeRequest'; id: number; projectId: number }

/**
 * What a note's save does to its issue or merge request (GL Note `after_save :touch_noteable`), run in the note's
 * transaction; `at` is an ISO 8601 time. The app passes the feature that owns those rows.
 */
export type TouchNoteable = (trx: Db, noteable: Noteable, at: string) => Promise<void>

/**
 * A system note (`system: true`) recording a change to an issue or merge request, such as
 * "added ~3 label" or "closed"; call it inside the transaction of the change.
 */
export function createSystemNote(trx: Db, noteable: Noteable, authorId: number, body: string, at: Date): Promise<NoteRow> {
  const now = at.toISOString()
  return insertNote(trx, {
    project_id: noteable.projectId,
    issue_id: noteable.type === 'Issue' ? noteable.id : null,
    merge_request_id: noteable.type === 'MergeRequest' ? noteable.id : null,
    author_id: authorId,
    body,
    system: 1,
    discussion_id: newDiscussionId(),
    created_at: now,
    updated_at: now,
  })
}

/**
 * A system note written once (GL SystemNoteService.cross_reference and `cross_reference_exists?`): nothing is written
 * when the same text is there already. Call it inside the transaction of the change.
 */
export async function createSystemNoteOnce(trx: Db, noteable: Noteable, authorId: number, body: string, at: Date): Promise<void> {
  if (!(await hasSystemNoteRow(trx, noteable, body))) await createSystemNote(trx, noteable, authorId, body, at)
}

/** Whether a merge request has a thread left to resolve (GL MergeRequest#mergeable_discussions_state?). */
export function hasUnresolvedThreads(db: Db, mergeRequestId: number): Promise<boolean> {
  return hasUnresolvedThreadRows(db, mergeRequestId)
}

/** A system note on an alert (GL SystemNotes::AlertManagementService); call it inside the transaction of the change. */
export function createAlertSystemNote(
  trx: Db,
  alert: { id: number; projectId: number },
  authorId: number,
  body: string,
  at: Date,
): Promise<NoteRow> {
  const now = at.toISOString()
  return insertNote(trx, {
    project_id: alert.projectId,
    issue_id: null,
    merge_request_id: null,
    alert_id: alert.id,
    author_id: authorId,
    body,
    system: 1,
    created_at: now,
    updated_at: now,
  })
}

/** The notes of an alert, oldest first (its activity). */
export function findAlertNotes(db: Db, alertId: number): Promise<NoteRow[]> {
  return selectAlertNoteRows(db, alertId)
}

/** A system note on an alert, as `createAlertSystemNotes` takes it; `at` is an ISO 8601 time. */
export interface AlertSystemNote {
  projectId: number
  alertId: number
  authorId: number
  body: string
  at: string
}

/** System notes on many alerts at once (GL SystemNotes::AlertManagementService); call it inside the transaction of the change. */
export async function createAlertSystemNotes(trx: Db, notes: readonly AlertSystemNote[]): Promise<void> {
  await insertNotes(
    trx,
    notes.map((note) => ({
      project_id: note.projectId,
      issue_id: null,
      merge_request_id: null,
      updated_by_id: null,
      alert_id: note.alertId,
      author_id: note.authorId,
      body: note.body,
      system: 1,
      created_at: note.at,
      updated_at: note.at,
    })),
  )
}

/** Removes every note of an issue or merge request; call it inside the transaction that deletes it. */
export function deleteNotesOf(trx: Db, noteable: Pick<Noteable, 'type' | 'id'>): Promise<void> {
  return deleteNoteRowsOf(trx, noteable)
}

// The discussion of an issue or merge request as the pages show it, with the API's note rules.
export { findNoteable, listNotes, type LoadedNoteable, type NoteView } from './service.js'

// Comments and threads, for the merge request's API and pages: a thread on a diff line carries GitLab's position.
export { createNote, viewsOf, type CreateNoteInput } from './service.js'
export {
  findDiscussion,
  isResolved,
  listDiscussions,
  replyToDiscussion,
  resolveDiscussion,
  type DiscussionView,
  type NoteThread,
} from './discussions.js'
export { discussionIdOf, isResolvable, newDiscussionId } from './thread-ids.js'

// Comments with quick actions, for the API and the issue and merge request pages; the features owning them read them.
export { createNoteWithCommands, type NoteCommandOptions, type NoteCommands, type NoteCreation, type ReadNoteCommands } from './commands.js'
export { NoteCommandsJson } from './schemas.js'
