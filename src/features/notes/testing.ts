import type { Db } from '../../db/index.js'

/** The events recorded in a project, oldest first; read by the tests of this feature. */
export function eventsOfProject(db: Db, projectId: number) {
  return db
    .selectFrom('events')
    .select(['project_id', 'author_id', 'action', 'target_type', 'target_id', 'created_at'])
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute()
}

/** The stored notes of an issue, oldest first. */
export function notesOfIssue(db: Db, issueId: number) {
  return db.selectFrom('notes').selectAll().where('issue_id', '=', issueId).orderBy('id').execute()
}

/** A stored note by id. */
export function noteRowOf(db: Db, noteId: number) {
  return db.selectFrom('notes').selectAll().where('id', '=', noteId).executeTakeFirst()
}
