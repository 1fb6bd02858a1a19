import type { Db } from '../../db/index.js'

/** System notes of an issue or merge request, oldest first, as bodies. */
export async function systemNotesOf(db: Db, target: { issueId?: number; mergeRequestId?: number }): Promise<string[]> {
  let query = db.selectFrom('notes').select('body').where('system', '=', 1)
  if (target.issueId !== undefined) query = query.where('issue_id', '=', target.issueId)
  if (target.mergeRequestId !== undefined) query = query.where('merge_request_id', '=', target.mergeRequestId)
  const rows = await query.orderBy('id').execute()
  return rows.map((row) => row.body)
}

/** Events about one target, oldest first, as [action number, author id]. */
export async function eventsOf(db: Db, targetType: 'Issue' | 'MergeRequest', targetId: number): Promise<Array<[number, number]>> {
  const rows = await db
    .selectFrom('events')
    .select(['action', 'author_id'])
    .where('target_type', '=', targetType)
    .where('target_id', '=', targetId)
    .orderBy('id')
    .execute()
  return rows.map((row) => [Number(row.action), Number(row.author_id)])
}
