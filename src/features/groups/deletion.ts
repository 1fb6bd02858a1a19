import { Type } from '@sinclair/typebox'
import type { Db } from '../../db/index.js'
import type { NamespaceRow } from '../../db/schema.js'
import { defineJob, enqueueJob, handle } from '../../jobs/index.js'
import { markProjectsBelowPendingDelete, removeProjectRepositories } from '../projects/index.js'
import { removeRepository } from '../repositories/index.js'
import { deleteGroupRow, findGroupById, markGroupsAtOrBelowPendingDelete, projectsInSubtree, wikiRepositoriesInSubtree } from './store.js'

// GL Groups::DestroyService run by GroupDestroyWorker: DELETE marks the group, its subgroups and their projects
// `pending_delete`, which hides them from every finder at once, and answers 202; this job removes their repositories,
// then the rows (subgroups, projects and everything of theirs go with the group's row).

export const DeleteGroup = defineJob('groups.delete', Type.Object({ groupId: Type.Integer() }), { maxAttempts: 10 })

/** Marks a group and everything below it for deletion and schedules its removal, inside the caller's transaction. */
export async function scheduleGroupDeletion(trx: Db, group: NamespaceRow, now: Date): Promise<void> {
  await markProjectsBelowPendingDelete(trx, group)
  await markGroupsAtOrBelowPendingDelete(trx, group)
  await enqueueJob(trx, DeleteGroup, { groupId: group.id }, { uniqueKey: `groups.delete:${group.id}`, now })
}

export const jobHandlers = [
  handle(DeleteGroup, async (ctx, { groupId }) => {
    const group = await findGroupById(ctx.db, groupId)
    if (!group) return
    // Repositories first: a missing one is fine, so a rerun after a crash finishes the job.
    await removeProjectRepositories(ctx.db, ctx.config, await projectsInSubtree(ctx.db, group))
    for (const wiki of await wikiRepositoriesInSubtree(ctx.db, group)) {
      await removeRepository(ctx.config, wiki.storage, wiki.id, 'group-wiki')
    }
    await ctx.db.transaction().execute((trx) => deleteGroupRow(trx, groupId))
  }),
]
