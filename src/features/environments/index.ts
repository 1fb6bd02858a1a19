// What other features may use of environments.
import type { Db } from '../../db/index.js'
import type { EnvironmentRow } from '../../db/schema.js'
import { selectEnvironmentsByNames } from './store.js'

/** The project's environments named exactly one of `names` (case-sensitive, as GitLab's `name` column). */
export function findEnvironmentsByNames(db: Db, projectId: number, names: string[]): Promise<EnvironmentRow[]> {
  return selectEnvironmentsByNames(db, projectId, names)
}
