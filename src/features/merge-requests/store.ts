import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Db } from '../../db/index.js'
import type {
  Database,
  MergeRequestDiffRow,
  MergeRequestRow,
  MergeRequestUpdate,
  NewMergeRequestDiffRow,
  NewMergeRequestRow,
  UserRow,
} from '../../db/schema.js'

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

export function findMergeRequestById(db: Db, id: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The merge request's row as it is now, written first so that concurrent transactions take their turns on it. */
export function lockMergeRequestRow(trx: Db, id: number): Promise<MergeRequestRow | undefined> {
  return trx
    .updateTable('merge_requests')
    .set((eb) => ({ iid: eb.ref('iid') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

/** Ends the rebase `jobId` ran, unless another one holds the merge request now; answers whether it was that job's. */
export async function finishMergeRequestRebase(db: Db, id: number, jobId: number, changes: MergeRequestUpdate): Promise<boolean> {
  const result = await db
    .updateTable('merge_requests')
    .set({ ...changes, rebase_job_id: null })
    .where('id', '=', id)
    .where('rebase_job_id', '=', jobId)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
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

export function findLatestMergeRequestDiff(db: Db, mergeRequestId: number): Promise<MergeRequestDiffRow | undefined> {
  return db
    .selectFrom('merge_request_diffs')
    .selectAll()
    .where('merge_request_id', '=', mergeRequestId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** Every version of a merge request, newest first. */
export function findMergeRequestDiffs(db: Db, mergeRequestId: number): Promise<MergeRequestDiffRow[]> {
  return db.selectFrom('merge_request_diffs').selectAll().where('merge_request_id', '=', mergeRequestId).orderBy('id', 'desc').execute()
}

export function findMergeRequestDiff(db: Db, mergeRequestId: number, id: number): Promise<MergeRequestDiffRow | undefined> {
  return db
    .selectFrom('merge_request_diffs')
    .selectAll()
    .where('merge_request_id', '=', mergeRequestId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/**
 * Inserts a version unless another was recorded after `latestId` meanwhile (undefined then). The merge request's row
 * is written first, so that concurrent transactions take their turns on it.
 */
export async function insertMergeRequestDiffUnlessMoved(
  trx: Db,
  latestId: number | null,
  row: NewMergeRequestDiffRow,
): Promise<MergeRequestDiffRow | undefined> {
  await lockMergeRequestRow(trx, row.merge_request_id)
  const latest = await findLatestMergeRequestDiff(trx, row.merge_request_id)
  if ((latest?.id ?? null) !== latestId) return undefined
  return trx.insertInto('merge_request_diffs').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The project's merge requests with these iids, or that merged or squashed into `sha`; newest first. */
export function findMergeRequestsByIidsOrCommit(
  db: Db,
  projectId: number,
  iids: readonly number[],
  sha: string,
): Promise<MergeRequestRow[]> {
  return db
    .selectFrom('merge_requests')
    .selectAll()
    .where('project_id', '=', projectId)
    .where((eb) =>
      eb.or([
        ...(iids.length > 0 ? [eb('iid', 'in', [...iids])] : []),
        eb('merge_commit_sha', '=', sha),
        eb('squash_commit_sha', '=', sha),
      ]),
    )
    .orderBy('id', 'desc')
    .execute()
}

/** Open merge requests from these branches of a source project, whichever project they target. */
export function findOpenMergeRequestsFromBranches(
  db: Db,
  sourceProjectId: number,
  branches: readonly string[],
): Promise<MergeRequestRow[]> {
  if (branches.length === 0) return Promise.resolve([])
  return db
    .selectFrom('merge_requests')
    .selectAll()
    .where('state', '=', 'opened')
    .where((eb) =>
      eb.or([
        eb('source_project_id', '=', sourceProjectId),
        eb.and([eb('source_project_id', 'is', null), eb('project_id', '=', sourceProjectId)]),
      ]),
    )
    .where('source_branch', 'in', [...branches])
    .orderBy('id')
    .execute()
}

/** The approvals of one merge request with their users, oldest first (GL MergeRequest#approvals). */
export async function findMergeRequestApprovals(db: Db, mergeRequestId: number): Promise<Array<{ user: UserRow; approvedAt: string }>> {
  const rows = await db
    .selectFrom('merge_request_approvals')
    .innerJoin('users', 'users.id', 'merge_request_approvals.user_id')
    .selectAll('users')
    .select('merge_request_approvals.created_at as approved_at')
    .where('merge_request_approvals.merge_request_id', '=', mergeRequestId)
    .orderBy('merge_request_approvals.created_at')
    .orderBy('users.id')
    .execute()
  return rows.map(({ approved_at, ...user }) => ({ user: user as UserRow, approvedAt: new Date(approved_at).toISOString() }))
}

/** Whether the approval is new (a second one by the same user writes nothing). */
export async function insertMergeRequestApproval(db: Db, mergeRequestId: number, userId: number, at: string): Promise<boolean> {
  const result = await db
    .insertInto('merge_request_approvals')
    .values({ merge_request_id: mergeRequestId, user_id: userId, created_at: at })
    .onConflict((conflict) => conflict.columns(['merge_request_id', 'user_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/** Whether an approval was there to delete. */
export async function deleteMergeRequestApproval(db: Db, mergeRequestId: number, userId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('merge_request_approvals')
    .where('merge_request_id', '=', mergeRequestId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function deleteMergeRequestApprovals(db: Db, mergeRequestId: number): Promise<void> {
  await db.deleteFrom('merge_request_approvals').where('merge_request_id', '=', mergeRequestId).execute()
}
