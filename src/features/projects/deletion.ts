import { Type } from '@sinclair/typebox'
import type { Config } from '../../config/index.js'
import type { Db } from '../../db/index.js'
import { defineJob, enqueueJob, handle } from '../../jobs/index.js'
import { noticeChange } from '../change-notices/index.js'
import { removeRepository } from '../repositories/index.js'
import { deleteProjectRow, markProjectsPendingDelete, snippetRepositoriesOfProjects } from './store.js'
import { findProjectById } from '../access/index.js'

// GL Projects::DestroyService run by ProjectDestroyWorker: DELETE marks the project `pending_delete`, which hides it
// from every finder at once, and answers 202; this job removes its repositories, then its rows.

export const DeleteProject = defineJob(
  'projects.delete',
  // `userId`: who deleted it, absent in jobs queued before it was kept.
  Type.Object({ projectId: Type.Integer(), userId: Type.Optional(Type.Integer()) }),
  { maxAttempts: 10 },
)

/** Marks a project for deletion and schedules its removal, inside the caller's transaction. */
export async function scheduleProjectDeletion(trx: Db, projectId: number, now: Date, userId?: number): Promise<void> {
  await markProjectsPendingDelete(trx, [projectId])
  const payload = userId === undefined ? { projectId } : { projectId, userId }
  await enqueueJob(trx, DeleteProject, payload, { uniqueKey: `projects.delete:${projectId}`, now })
}

/**
 * Removes the repositories of projects: their own, their wikis' and their snippets'. Missing directories are fine,
 * so a second run after a crash removes nothing more; rows go only after this, so nothing is left unreachable on disk.
 */
export async function removeProjectRepositories(db: Db, config: Config, projects: readonly { id: number; repository_storage: string }[]) {
  for (const project of projects) {
    await removeRepository(config, project.repository_storage, project.id)
    await removeRepository(config, project.repository_storage, project.id, 'project-wiki')
  }
  for (const snippet of await snippetRepositoriesOfProjects(
    db,
    projects.map((p) => p.id),
  )) {
    await removeRepository(config, snippet.repository_storage, snippet.id, 'snippet')
  }
}

export const jobHandlers = [
  handle(DeleteProject, async (ctx, { projectId, userId }) => {
    const [project] = await findProjectById(ctx.db, projectId)
    if (!project) return
    await removeProjectRepositories(ctx.db, ctx.config, [project])
    await ctx.db.transaction().execute(async (trx) => {
      // Told before the rows go, so that whoever tells of it reads the project as it was (GL DestroyService#execute_hooks).
      const actorId = userId ?? project.creator_id ?? 0
      await noticeChange(ctx, trx, { kind: 'project', action: 'destroy', projectId, actorId, at: ctx.now() })
      await deleteProjectRow(trx, projectId)
    })
  }),
]
