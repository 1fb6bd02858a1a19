import { sql, type Expression, type SqlBool } from 'kysely'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { peopleChangeNote, userFilterOf } from '../issuables/index.js'
import { findUsersByIds } from '../users/index.js'

// The users asked to review a merge request (GL MergeRequestReviewer): set with `reviewer_ids` as assignees are,
// listed at GET …/reviewers, filtered by `reviewer_id` and `reviewer_username`.

export interface Reviewer {
  user: UserRow
  /** 'unreviewed' until the review. */
  state: string
  createdAt: string
}

/** The reviewers of each merge request, by user id as assignees are listed. */
export async function findReviewersOf(db: Db, ids: readonly number[]): Promise<Map<number, Reviewer[]>> {
  const byId = new Map<number, Reviewer[]>()
  if (ids.length === 0) return byId
  const rows = await db
    .selectFrom('merge_request_reviewers')
    .innerJoin('users', 'users.id', 'merge_request_reviewers.user_id')
    .selectAll('users')
    .select([
      'merge_request_reviewers.merge_request_id as reviewed_id',
      'merge_request_reviewers.state as review_state',
      'merge_request_reviewers.created_at as requested_at',
    ])
    .where('merge_request_reviewers.merge_request_id', 'in', [...ids])
    .orderBy('users.id')
    .execute()
  for (const { reviewed_id, review_state, requested_at, ...user } of rows) {
    const list = byId.get(Number(reviewed_id)) ?? []
    list.push({ user: user as UserRow, state: review_state, createdAt: new Date(requested_at).toISOString() })
    byId.set(Number(reviewed_id), list)
  }
  return byId
}

/**
 * GL IssuableBaseService#filter_reviewers: the requested users who exist and may read the merge request, in the order
 * asked, and only the first unless the tier allows several. An empty list (or `0`) removes every reviewer.
 */
export async function requestedReviewers(
  ctx: Context,
  db: Db,
  ids: readonly number[],
  canReview: (user: UserRow) => Promise<boolean>,
): Promise<UserRow[]> {
  const wanted = [...new Set(ids.filter((id) => id > 0))]
  const users = new Map((await findUsersByIds(db, wanted)).map((user) => [user.id, user]))
  const reviewers: UserRow[] = []
  for (const id of wanted) {
    const user = users.get(id)
    if (user && (await canReview(user))) reviewers.push(user)
  }
  return ctx.config.tier === 'free' ? reviewers.slice(0, 1) : reviewers
}

/** Writes the new set of reviewers; those who stay keep their review state. Returns whether anything changed. */
export async function replaceReviewers(
  trx: Db,
  mergeRequestId: number,
  before: readonly UserRow[],
  after: readonly UserRow[],
  at: string,
): Promise<boolean> {
  const afterIds = new Set(after.map((user) => user.id))
  const beforeIds = new Set(before.map((user) => user.id))
  const removed = before.filter((user) => !afterIds.has(user.id)).map((user) => user.id)
  const added = after.filter((user) => !beforeIds.has(user.id))
  if (removed.length > 0) {
    await trx.deleteFrom('merge_request_reviewers').where('merge_request_id', '=', mergeRequestId).where('user_id', 'in', removed).execute()
  }
  if (added.length > 0) {
    await trx
      .insertInto('merge_request_reviewers')
      .values(added.map((user) => ({ merge_request_id: mergeRequestId, user_id: user.id, created_at: at })))
      .execute()
  }
  return removed.length > 0 || added.length > 0
}

/** GL SystemNotes::IssuablesService#change_issuable_reviewers: "requested review from @a and removed review request for @b". */
export function reviewerChangeNote(before: readonly UserRow[], after: readonly UserRow[]): string | null {
  return peopleChangeNote(before, after, { added: 'requested review from', removed: 'removed review request for' })
}

/** GL MergeRequestsFinder#by_reviewer: `reviewer_id` (an id, `None` or `Any`) or `reviewer_username`. */
export function reviewerConditions(filters: { reviewerId?: string; reviewerUsername?: string }): Expression<SqlBool>[] {
  const reviewed = (extra: Expression<unknown> = sql``) =>
    sql<SqlBool>`exists (select 1 from merge_request_reviewers r where r.merge_request_id = merge_requests.id${extra})`
  const reviewer = userFilterOf('reviewer_id', filters.reviewerId)
  const conditions: Expression<SqlBool>[] = []
  if (reviewer === 'none') conditions.push(sql<SqlBool>`not ${reviewed()}`)
  else if (reviewer === 'any') conditions.push(reviewed())
  else if (reviewer !== undefined) conditions.push(reviewed(sql` and r.user_id = ${reviewer}`))
  if (filters.reviewerUsername !== undefined) {
    conditions.push(reviewed(sql` and r.user_id in (select id from users where lower(username) = lower(${filters.reviewerUsername}))`))
  }
  return conditions
}
