import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { NewNoteRow, NoteRow } from '../../db/schema.js'
import type { Noteable } from './index.js'

export function insertNote(db: Db, row: NewNoteRow): Promise<NoteRow> {
  return db.insertInto('notes').values(row).returningAll().executeTakeFirstOrThrow()
}

/** Many notes, a hundred rows a statement. */
export async function insertNotes(db: Db, rows: readonly NewNoteRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += 100)
    await db
      .insertInto('notes')
      .values(rows.slice(at, at + 100))
      .execute()
}

function noteableColumn(noteable: Pick<Noteable, 'type'>) {
  return noteable.type === 'Issue' ? ('issue_id' as const) : ('merge_request_id' as const)
}

export interface NoteOrder {
  column: 'created_at' | 'updated_at'
  direction: 'asc' | 'desc'
  /** 'user' for comments only, 'system' for activity only, null for both. */
  kind: 'user' | 'system' | null
}

/** The notes of an issue or merge request in the asked order, id breaking ties the same way (GL `order_options_with_tie_breaker`). */
export function selectNotesOf(db: Db, noteable: Noteable, order: NoteOrder) {
  let query = db.selectFrom('notes').selectAll().where(noteableColumn(noteable), '=', noteable.id)
  if (order.kind !== null) query = query.where('system', '=', order.kind === 'system' ? 1 : 0)
  return query.orderBy(sql.ref(order.column), order.direction).orderBy('id', order.direction)
}

/** The notes of an alert, oldest first. */
export function selectAlertNoteRows(db: Db, alertId: number): Promise<NoteRow[]> {
  return db.selectFrom('notes').selectAll().where('alert_id', '=', alertId).orderBy('created_at', 'asc').orderBy('id', 'asc').execute()
}

export function findNoteOf(db: Db, noteable: Noteable, noteId: number): Promise<NoteRow | undefined> {
  return db.selectFrom('notes').selectAll().where(noteableColumn(noteable), '=', noteable.id).where('id', '=', noteId).executeTakeFirst()
}

export function updateNoteRow(db: Db, noteId: number, changes: { body: string; updated_by_id: number; updated_at: string }) {
  return db.updateTable('notes').set(changes).where('id', '=', noteId).returningAll().executeTakeFirstOrThrow()
}

export async function deleteNoteRow(db: Db, noteId: number): Promise<void> {
  await db.deleteFrom('notes').where('id', '=', noteId).execute()
}

export async function deleteNoteRowsOf(db: Db, noteable: Pick<Noteable, 'type' | 'id'>): Promise<void> {
  await db.deleteFrom('notes').where(noteableColumn(noteable), '=', noteable.id).execute()
}

/** The notes of one thread, oldest first. */
export function selectThreadRows(db: Db, noteable: Noteable, discussionId: string): Promise<NoteRow[]> {
  return db
    .selectFrom('notes')
    .selectAll()
    .where(noteableColumn(noteable), '=', noteable.id)
    .where('discussion_id', '=', discussionId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute()
}

/** Makes a note part of a thread. */
export async function updateNoteThread(db: Db, noteId: number, thread: { type: string; discussion_id: string }): Promise<void> {
  await db.updateTable('notes').set(thread).where('id', '=', noteId).execute()
}

export async function updateThreadResolution(
  db: Db,
  noteIds: readonly number[],
  change: { resolved_at: string | null; resolved_by_id: number | null },
): Promise<void> {
  await db
    .updateTable('notes')
    .set(change)
    .where('id', 'in', [...noteIds])
    .execute()
}

/** Whether a system note with exactly this text is on the issue or merge request. */
export async function hasSystemNoteRow(db: Db, noteable: Noteable, body: string): Promise<boolean> {
  const found = await db
    .selectFrom('notes')
    .select('id')
    .where(noteableColumn(noteable), '=', noteable.id)
    .where('system', '=', 1)
    .where('body', '=', body)
    .executeTakeFirst()
  return found !== undefined
}

/** Whether a merge request has a note that can be resolved and is not (GL `unresolved_notes`). */
export async function hasUnresolvedThreadRows(db: Db, mergeRequestId: number): Promise<boolean> {
  const found = await db
    .selectFrom('notes')
    .select('id')
    .where('merge_request_id', '=', mergeRequestId)
    .where('system', '=', 0)
    .where('type', 'in', ['DiffNote', 'DiscussionNote'])
    .where('resolved_at', 'is', null)
    .executeTakeFirst()
  return found !== undefined
}
