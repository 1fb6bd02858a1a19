import { Type } from '@sinclair/typebox'
import type { Db } from '../../db/index.js'
import { defineJob, enqueueJob, handle } from '../../jobs/index.js'
import { removeRepository, type RepositoryKind } from './index.js'

/** A repository on disk, by owner and storage. */
export interface RepositoryLocation {
  kind: RepositoryKind
  id: number
  storage: string
}

const KINDS: RepositoryKind[] = ['project', 'project-wiki', 'snippet', 'group-wiki']

// Repositories whose rows are already gone (e.g. with a deleted user's personal projects and snippets). A missing
// directory is fine, so the job can run twice.
export const RemoveRepositories = defineJob(
  'repositories.remove',
  Type.Object({
    repositories: Type.Array(
      Type.Object({ kind: Type.Union(KINDS.map((kind) => Type.Literal(kind))), id: Type.Integer(), storage: Type.String() }),
    ),
  }),
  { maxAttempts: 10 },
)

/** Schedules the removal of repositories, inside the transaction that removes their rows. */
export async function scheduleRepositoryRemoval(trx: Db, repositories: RepositoryLocation[], now: Date): Promise<void> {
  if (repositories.length > 0) await enqueueJob(trx, RemoveRepositories, { repositories }, { now })
}

export const jobHandlers = [
  handle(RemoveRepositories, async (ctx, { repositories }) => {
    for (const { kind, id, storage } of repositories) {
      // A storage no longer configured holds nothing this node can remove.
      if (ctx.config.storages[storage] !== undefined) await removeRepository(ctx.config, storage, id, kind)
    }
  }),
]
