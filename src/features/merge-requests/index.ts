import type { Context } from '../../core/context.js'
import { RecordNotFound } from '../../core/errors.js'
import type { MergeRequestRow } from '../../db/schema.js'
import type { LoadedProject } from '../projects/index.js'
import { canReadMergeRequests } from './policy.js'
import { findMergeRequestByIid } from './store.js'

export { canReadMergeRequests } from './policy.js'

/** A merge request of the project by iid as the caller may see it; 404 "Not found" otherwise (GL `find_project_merge_request`). */
export async function findMergeRequest(ctx: Context, loaded: LoadedProject, iid: number): Promise<MergeRequestRow> {
  if (!canReadMergeRequests(loaded.access, loaded.project)) throw new RecordNotFound()
  const mergeRequest = await findMergeRequestByIid(ctx.db, loaded.project.id, iid)
  if (!mergeRequest) throw new RecordNotFound()
  return mergeRequest
}
