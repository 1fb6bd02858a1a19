import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { findProjectsByIds } from '../access/index.js'
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

/** The project at the root of a fork network (GL ForkNetwork#root_project), following forked_from links. */
async function forkRootOf(db: Db, project: ProjectRow): Promise<number> {
  const seen = new Set<number>([project.id])
  let current = project
  while (current.forked_from_project_id !== null && !seen.has(current.forked_from_project_id)) {
    const [parent] = await findProjectsByIds(db, [current.forked_from_project_id])
    if (!parent) break
    seen.add(parent.id)
    current = parent
  }
  return current.id
}

/** GL Project#in_fork_network_of?: both projects descend from the same root. */
export async function inSameForkNetwork(db: Db, a: ProjectRow, b: ProjectRow): Promise<boolean> {
  return (await forkRootOf(db, a)) === (await forkRootOf(db, b))
}
