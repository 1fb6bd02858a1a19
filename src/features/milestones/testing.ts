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

/** The stored milestones of a project, oldest first. */
export function milestonesOfProject(db: Db, projectId: number) {
  return db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}
