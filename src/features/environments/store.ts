import type { Db } from '../../db/index.js'
import type { EnvironmentRow } from '../../db/schema.js'

/** The project's environments with one of these exact names. */
export function selectEnvironmentsByNames(db: Db, projectId: number, names: readonly string[]): Promise<EnvironmentRow[]> {
  if (names.length === 0) return Promise.resolve([])
  return db
    .selectFrom('environments')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('name', 'in', [...new Set(names)])
    .execute()
}
