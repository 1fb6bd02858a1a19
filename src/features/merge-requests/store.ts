import type { Db } from '../../db/index.js'
import type { MergeRequestRow } from '../../db/schema.js'

export function findMergeRequestByIid(db: Db, projectId: number, iid: number): Promise<MergeRequestRow | undefined> {
  return db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst()
}
