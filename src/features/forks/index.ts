import { handle, type JobHandler } from '../../jobs/index.js'
import { ForkRepository } from './jobs.js'
import { copyForkRepository } from './service.js'

export { canForkProject } from './policy.js'
export { forkProject, listForks, listForkTargets, type ForkInput } from './service.js'

/** The fork job, run by every node's worker. */
export const jobHandlers: JobHandler[] = [
  handle(ForkRepository, (ctx, payload) => copyForkRepository(ctx, payload.projectId, payload.branch)),
]
