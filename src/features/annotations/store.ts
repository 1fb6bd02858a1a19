import type { Db } from '../../db/index.js'
import type { AnnotationRow } from '../../db/schema.js'

/** What an annotation hangs under: an environment or a cluster. */
export type AnnotationOwner = { environmentId: number } | { clusterId: number }

function ownerColumn(owner: AnnotationOwner): { column: 'environment_id' | 'cluster_id'; id: number } {
  return 'environmentId' in owner ? { column: 'environment_id', id: owner.environmentId } : { column: 'cluster_id', id: owner.clusterId }
}

export interface AnnotationFilter {
  dashboardPath?: string
  /** Starting at or after (GL Annotation.after). */
  from?: string
  /** Starting at or before (GL Annotation.before). */
  to?: string
}

/** The owner's annotations matching the filter, latest start first. */
export function selectAnnotations(db: Db, owner: AnnotationOwner, filter: AnnotationFilter) {
  const { column, id } = ownerColumn(owner)
  let query = db.selectFrom('metrics_dashboard_annotations').selectAll().where(column, '=', id)
  if (filter.dashboardPath !== undefined) query = query.where('dashboard_path', '=', filter.dashboardPath)
  if (filter.from !== undefined) query = query.where('starting_at', '>=', filter.from)
  if (filter.to !== undefined) query = query.where('starting_at', '<=', filter.to)
  return query.orderBy('starting_at', 'desc').orderBy('id', 'desc')
}

export function findOwnedAnnotation(db: Db, owner: AnnotationOwner, id: number): Promise<AnnotationRow | undefined> {
  const { column, id: ownerId } = ownerColumn(owner)
  return db.selectFrom('metrics_dashboard_annotations').selectAll().where(column, '=', ownerId).where('id', '=', id).executeTakeFirst()
}

export function insertAnnotation(db: Db, row: Omit<AnnotationRow, 'id'>): Promise<AnnotationRow> {
  return db.insertInto('metrics_dashboard_annotations').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function deleteAnnotationRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('metrics_dashboard_annotations').where('id', '=', id).execute()
}
