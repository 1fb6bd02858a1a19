import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type { Database, IssueRow, IssueUpdate, NewIssueRow } from '../../db/schema.js'

export function insertIssue(db: Db, row: NewIssueRow): Promise<IssueRow> {
  return db.insertInto('issues').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateIssueRow(db: Db, id: number, changes: IssueUpdate): Promise<IssueRow> {
  return db.updateTable('issues').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteIssueRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('issues').where('id', '=', id).execute()
}

export function findIssuesByIds(db: Db, ids: readonly number[]): Promise<IssueRow[]> {
  if (ids.length === 0) return Promise.resolve([])
  return db
    .selectFrom('issues')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute()
}

/** A sort value for every order: nullable columns sort last in both directions (GL `nulls_last` orders). */
export function sortKeyOf(column: string, direction: 'asc' | 'desc') {
  const ref = sql.ref(`issues.${column}`)
  switch (column) {
    case 'due_date':
      return sql`coalesce(${ref}, ${direction === 'asc' ? '9999-12-31' : '0001-01-01'})`
    case 'weight':
    case 'relative_position':
      return sql`coalesce(${ref}, ${sql.lit(direction === 'asc' ? 2147483647 : -2147483648)})`
    case 'milestone_due':
      return sql`coalesce((select m.due_date from milestones m where m.id = issues.milestone_id), ${direction === 'asc' ? '9999-12-31' : '0001-01-01'})`
    default:
      return ref
  }
}

/**
 * Issues joined with their projects under `conditions`, as a derived table `issues` with a `sort_key` column
 * for `column`, so pages can order and continue by (sort_key, id) without ambiguous names.
 */
export function selectIssues(
  db: Db,
  conditions: (eb: ExpressionBuilder<Database, 'issues' | 'projects'>) => Expression<SqlBool>,
  column: string,
  direction: 'asc' | 'desc',
) {
  const inner = baseQuery(db).selectAll('issues').select(sortKeyOf(column, direction).as('sort_key')).where(conditions)
  return db.selectFrom(inner.as('issues')).selectAll()
}

function baseQuery(db: Db) {
  return db.selectFrom('issues').innerJoin('projects', 'projects.id', 'issues.project_id')
}
