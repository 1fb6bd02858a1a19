import type { Db } from '../../db/index.js'
import type { ClusterRow } from '../../db/schema.js'

type NewCluster = Omit<ClusterRow, 'id'>
export type ClusterChanges = Partial<Omit<ClusterRow, 'id' | 'project_id' | 'user_id' | 'created_at'>>

/** The project's clusters, oldest first. */
export function selectProjectClusters(db: Db, projectId: number) {
  return db.selectFrom('clusters').selectAll().where('project_id', '=', projectId).orderBy('id', 'asc')
}

export function findClusterInProject(db: Db, projectId: number, id: number): Promise<ClusterRow | undefined> {
  return db.selectFrom('clusters').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

export function findClusterRowById(db: Db, id: number): Promise<ClusterRow | undefined> {
  return db.selectFrom('clusters').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Whether another cluster of the project has this environment scope. */
export async function isEnvironmentScopeTaken(db: Db, projectId: number, scope: string, exceptId: number | null): Promise<boolean> {
  let query = db.selectFrom('clusters').select('id').where('project_id', '=', projectId).where('environment_scope', '=', scope)
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export function insertCluster(db: Db, row: NewCluster): Promise<ClusterRow> {
  return db.insertInto('clusters').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateClusterRow(db: Db, id: number, changes: ClusterChanges): Promise<ClusterRow> {
  return db.updateTable('clusters').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteClusterRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('clusters').where('id', '=', id).execute()
}
