import { sql } from 'kysely'
import type { Db } from './index.js'

/** Kinds of per-project internal ids (GitLab InternalId usages). */
export type InternalIdUsage = 'issues' | 'merge_requests' | 'milestones' | 'alerts'

/**
 * The next iid of `usage` in a project, inside the caller's transaction. The counter row stays locked until
 * that transaction ends, so concurrent creations get consecutive iids and a rollback leaves no gap.
 */
export async function allocateInternalId(trx: Db, projectId: number, usage: InternalIdUsage): Promise<number> {
  const row = await trx
    .insertInto('internal_ids')
    .values({ project_id: projectId, usage, last_value: 1 })
    .onConflict((conflict) => conflict.columns(['project_id', 'usage']).doUpdateSet({ last_value: sql`internal_ids.last_value + 1` }))
    .returning('last_value')
    .executeTakeFirstOrThrow()
  return Number(row.last_value)
}
