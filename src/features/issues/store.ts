import type { Db } from '../../db/index.js'
import type { IssueRow } from '../../db/schema.js'

export function findIssueByIid(db: Db, projectId: number, iid: number): Promise<IssueRow | undefined> {
  return db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst()
}

export async function findIssueAssigneeIds(db: Db, issueId: number): Promise<number[]> {
  const rows = await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).orderBy('user_id').execute()
  return rows.map((row) => Number(row.user_id))
}
