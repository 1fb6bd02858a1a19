import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Tries before a fork is marked failed; a crash mid-copy (lease lost) counts as one. */
export const FORK_MAX_ATTEMPTS = 5

/** Copies the source's repository into a new fork's (GL RepositoryForkWorker); `branch`: only that branch. */
export const ForkRepository = defineJob(
  'forks.copy-repository',
  Type.Object({ projectId: Type.Integer(), branch: Type.Union([Type.String(), Type.Null()]) }),
  { maxAttempts: FORK_MAX_ATTEMPTS },
)
