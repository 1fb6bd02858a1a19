import type { Db } from '../../db/index.js'

/** The stored notes of an issue, oldest first. */
export function notesOfIssue(db: Db, issueId: number) {
  return db.selectFrom('notes').selectAll().where('issue_id', '=', issueId).orderBy('id').execute()
}

/** A stored note by id. */
export function noteRowOf(db: Db, noteId: number) {
  return db.selectFrom('notes').selectAll().where('id', '=', noteId).executeTakeFirst()
}
