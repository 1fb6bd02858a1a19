import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { Database, MergeRequestRow, MergeRequestUpdate, NewMergeRequestRow } from '../../db/schema.js'

export async function findMergeRequestAssigneeIds(db: Db, id: number): Promise<number[]> {
  const rows = await db.selectFrom('merge_request_assignees').select('user_id').where('merge_request_id', '=', id).execute()
  return rows.map((row) => Number(row.user_id))
}

/** An open merge request of the project between the same branches, other than `exceptId` (GL validate_branches). */
export function findOpenDuplicate(
  db: Db,
  projects: { target: number; source: number },
  sourceBranch: string,
  targetBranch: string,
  exceptId: number | null,
): Promise<{ iid: number } | undefined> {
  let query = db
    .selectFrom('merge_requests')
    .select('iid')
    .where('project_id', '=', projects.target)
    .where('source_project_id', '=', projects.source)
    .where('source_branch', '=', sourceBranch)
    .where('target_branch', '=', targetBranch)
    .where('state', '=', 'opened')
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return query.orderBy('id').limit(1).executeTakeFirst()
}

/** Whether the author has a merged merge request in the project (GL MergeRequest#first_contribution?). */
export async function hasMergedMergeRequest(db: Db, projectId: number, authorId: number): Promise<boolean> {
  const row = await db
    .selectFrom('merge_requests')
    .select('id')
    .where('project_id', '=', projectId)
    .where('author_id', '=', authorId)
    .where('state', '=', 'merged')
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

export function insertMergeRequest(db: Db, row: NewMergeRequestRow): Promise<MergeRequestRow> {
  return db.insertInto('merge_requests').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateMergeRequestRow(db: Db, id: number, changes: MergeRequestUpdate): Promise<MergeRequestRow> {
  return db.updateTable('merge_requests').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteMergeRequestRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('merge_requests').where('id', '=', id).execute()
}

function sortKeyOf(column: string, direction: 'asc' | 'desc') {
  const ref = sql.ref(`merge_requests.${column}`)
  switch (column) {
    case 'merged_at':
      return sql`coalesce(${ref}, ${direction === 'asc' ? '9999-12-31T00:00:00.000Z' : '0001-01-01T00:00:00.000Z'})`
    case 'milestone_due':
      return sql`coalesce((select m.due_date from milestones m where m.id = merge_requests.milestone_id), ${direction === 'asc' ? '9999-12-31' : '0001-01-01'})`
    default:
      return ref
  }
}

/** Merge requests joined with their projects under `conditions`, as a derived table with a `sort_key` column. */
export function selectMergeRequests(
  db: Db,
  conditions: (eb: ExpressionBuilder<Database, 'merge_requests' | 'projects'>) => Expression<SqlBool>,
  column: string,
  direction: 'asc' | 'desc',
) {
  const inner = db
    .selectFrom('merge_requests')
    .innerJoin('projects', 'projects.id', 'merge_requests.project_id')
    .selectAll('merge_requests')
    .select(sortKeyOf(column, direction).as('sort_key'))
    .where(conditions)
  return db.selectFrom(inner.as('merge_requests')).selectAll()
}
