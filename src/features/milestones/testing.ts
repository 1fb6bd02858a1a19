import type { Db } from '../../db/index.js'

/** The stored milestones of a project, oldest first. */
export function milestonesOfProject(db: Db, projectId: number) {
  return db.selectFrom('milestones').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}
