import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { moveImportStatusRow, setForkedFrom, clearForkedFrom } from './store.js'

// The fork relation of a project and the import state of a fork, as the forks feature moves them.

export type ImportStatus = 'scheduled' | 'started' | 'finished' | 'failed'

/** Moves a fork's import state on, only from the states given (GL ProjectImportState transitions); false when it was elsewhere. */
export function moveImportStatus(
  db: Db,
  projectId: number,
  from: readonly ImportStatus[],
  to: ImportStatus,
  error: string | null,
): Promise<boolean> {
  return moveImportStatusRow(db, projectId, from, { import_status: to, import_error: error })
}

/** Names the project's source; undefined when it had one already (a concurrent link won). Call it inside a transaction. */
export function markForkedFrom(trx: Db, projectId: number, sourceId: number): Promise<ProjectRow | undefined> {
  return setForkedFrom(trx, projectId, sourceId)
}

/** Forgets the project's source; undefined when it had none. Call it inside a transaction. */
export function unmarkForked(trx: Db, projectId: number): Promise<ProjectRow | undefined> {
  return clearForkedFrom(trx, projectId)
}
