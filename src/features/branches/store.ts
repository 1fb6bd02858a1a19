import type { Db } from '../../db/index.js'

/**
 * The branches open merge requests of the project come from or go to (GL DeleteMergedService#merge_request_branch_names),
 * which deleting merged branches leaves alone. A read of the merge requests' table, which that feature owns.
 */
export async function findOpenMergeRequestBranchNames(db: Db, projectId: number): Promise<Set<string>> {
  const [sources, targets] = await Promise.all([
    db
      .selectFrom('merge_requests')
      .select('source_branch as name')
      .where('source_project_id', '=', projectId)
      .where('state', '=', 'opened')
      .distinct()
      .execute(),
    db
      .selectFrom('merge_requests')
      .select('target_branch as name')
      .where('project_id', '=', projectId)
      .where('state', '=', 'opened')
      .distinct()
      .execute(),
  ])
  return new Set([...sources, ...targets].map((row) => row.name))
}
