// What other features may use of environments.
import type { Db } from '../../db/index.js'
import type { EnvironmentRow } from '../../db/schema.js'
import { findEnvironmentRowById, selectEnvironmentsByNames } from './store.js'

export { canReadEnvironments, canWriteEnvironments } from './policy.js'

/** The project's environments named exactly one of `names` (case-sensitive, as GitLab's `name` column). */
export function findEnvironmentsByNames(db: Db, projectId: number, names: string[]): Promise<EnvironmentRow[]> {
  return selectEnvironmentsByNames(db, projectId, names)
}

/** An environment by its global id, whatever project it is in. */
export function findEnvironmentById(db: Db, id: number): Promise<EnvironmentRow | undefined> {
  return findEnvironmentRowById(db, id)
}
