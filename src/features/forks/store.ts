import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { repositoryStateColumns, type RepositoryState } from '../repositories/index.js'

// The fork relation and the import state of a fork, both columns of `projects`.

export type ImportStatus = 'scheduled' | 'started' | 'finished' | 'failed'

/** Moves a fork's import state on, only from the states given (GL ProjectImportState transitions); false when it was elsewhere. */
export async function updateImportStatus(
  db: Db,
  projectId: number,
  from: readonly ImportStatus[],
  to: ImportStatus,
  error: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('projects')
    .set({ import_status: to, import_error: error })
    .where('id', '=', projectId)
    .where('import_status', 'in', [...from])
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Marks a scheduled or started fork finished and records what its entity shows of the repository just made, in one statement. */
export async function finishFork(db: Db, projectId: number, state: RepositoryState): Promise<boolean> {
  const result = await db
    .updateTable('projects')
    .set({ ...repositoryStateColumns(state), import_status: 'finished', import_error: null })
    .where('id', '=', projectId)
    .where('import_status', 'in', ['scheduled', 'started'])
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Names the project's source; false when it had one already (a concurrent link won). */
export async function linkForkedFrom(db: Db, projectId: number, sourceId: number): Promise<ProjectRow | undefined> {
  return db
    .updateTable('projects')
    .set({ forked_from_project_id: sourceId })
    .where('id', '=', projectId)
    .where('forked_from_project_id', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** Forgets the project's source; undefined when it had none. */
export async function unlinkForkedFrom(db: Db, projectId: number): Promise<ProjectRow | undefined> {
  return db
    .updateTable('projects')
    .set({ forked_from_project_id: null })
    .where('id', '=', projectId)
    .where('forked_from_project_id', 'is not', null)
    .returningAll()
    .executeTakeFirst()
}
