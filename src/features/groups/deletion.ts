import { Type } from '@sinclair/typebox'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow } from '../../db/schema.js'
import { defineJob, enqueueJob, handle } from '../../jobs/index.js'
import { noticeChange } from '../change-notices/index.js'
import { noticeMembershipsEnding } from '../members/index.js'
import { markProjectsBelowPendingDelete, removeProjectRepositories } from '../projects/index.js'
import { removeRepository } from '../repositories/index.js'
import {
  deleteGroupRow,
  findGroupById,
  groupsInSubtree,
  markGroupsAtOrBelowPendingDelete,
  projectsInSubtree,
  wikiRepositoriesInSubtree,
} from './store.js'

// GL Groups::DestroyService run by GroupDestroyWorker: DELETE marks the group, its subgroups and their projects
// `pending_delete`, which hides them from every finder at once, and answers 202; this job removes their repositories,
// then the rows (subgroups, projects and everything of theirs go with the group's row).

export const DeleteGroup = defineJob(
  'groups.delete',
  // `userId`: who deleted it, absent in jobs queued before it was kept.
  Type.Object({ groupId: Type.Integer(), userId: Type.Optional(Type.Integer()) }),
  { maxAttempts: 10 },
)

/** Marks a group and everything below it for deletion and schedules its removal, inside the caller's transaction. */
export async function scheduleGroupDeletion(trx: Db, group: NamespaceRow, now: Date, userId?: number): Promise<void> {
  await markProjectsBelowPendingDelete(trx, group)
  await markGroupsAtOrBelowPendingDelete(trx, group)
  const payload = userId === undefined ? { groupId: group.id } : { groupId: group.id, userId }
  await enqueueJob(trx, DeleteGroup, payload, { uniqueKey: `groups.delete:${group.id}`, now })
}

/**
 * Tells of everything the deletion removes, in GL Groups::DestroyService's order, before the rows go: for each group, its
 * projects, then its subgroups the same way, then its members, then the group itself.
 */
async function noticeGroupDeletion(ctx: Context, trx: Db, group: NamespaceRow, actorId: number) {
  const groups = await groupsInSubtree(trx, group)
  const projects = await projectsInSubtree(trx, group)
  const at = ctx.now()
  const visit = async (groupId: number): Promise<void> => {
    for (const project of projects.filter((p) => p.namespace_id === groupId)) {
      await noticeChange(ctx, trx, { kind: 'project', action: 'destroy', projectId: project.id, actorId, at })
    }
    for (const child of groups.filter((g) => g.parent_id === groupId)) await visit(child.id)
    await noticeMembershipsEnding(ctx, trx, { kind: 'group', id: groupId }, actorId)
    await noticeChange(ctx, trx, { kind: 'group', action: 'destroy', groupId, actorId, at })
  }
  await visit(group.id)
}

export const jobHandlers = [
  handle(DeleteGroup, async (ctx, { groupId, userId }) => {
    const group = await findGroupById(ctx.db, groupId)
    if (!group) return
    // Repositories first: a missing one is fine, so a rerun after a crash finishes the job.
    await removeProjectRepositories(ctx.db, ctx.config, await projectsInSubtree(ctx.db, group))
    for (const wiki of await wikiRepositoriesInSubtree(ctx.db, group)) {
      await removeRepository(ctx.config, wiki.storage, wiki.id, 'group-wiki')
    }
    await ctx.db.transaction().execute(async (trx) => {
      await noticeGroupDeletion(ctx, trx, group, userId ?? 0)
      await deleteGroupRow(trx, groupId)
    })
  }),
]
