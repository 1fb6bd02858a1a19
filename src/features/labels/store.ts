import type { Db } from '../../db/index.js'
import type { LabelRow, NewLabelRow } from '../../db/schema.js'

/** The labels a project can use: its own and those of every group above it (GL `include_ancestor_groups`). */
export function selectAvailableLabels(db: Db, projectId: number, groupIds: readonly number[]) {
  return db
    .selectFrom('labels')
    .selectAll()
    .where((eb) =>
      groupIds.length > 0 ? eb.or([eb('project_id', '=', projectId), eb('group_id', 'in', groupIds)]) : eb('project_id', '=', projectId),
    )
}

export function findAvailableLabelsByTitles(
  db: Db,
  projectId: number,
  groupIds: readonly number[],
  titles: readonly string[],
): Promise<LabelRow[]> {
  if (titles.length === 0) return Promise.resolve([])
  return selectAvailableLabels(db, projectId, groupIds)
    .where('title', 'in', [...new Set(titles)])
    .execute()
}

export function insertLabel(db: Db, row: NewLabelRow): Promise<LabelRow> {
  return db.insertInto('labels').values(row).returningAll().executeTakeFirstOrThrow()
}
