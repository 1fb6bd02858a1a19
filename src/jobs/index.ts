export {
  defineJob,
  every,
  handle,
  DEFAULT_MAX_ATTEMPTS,
  type JobContext,
  type JobDefinition,
  type JobHandler,
  type PeriodicJob,
} from './define.js'
export { enqueueJob, type EnqueueOptions } from './enqueue.js'
export { JobScheduler } from './scheduler.js'
export { JobWorker, wakeJobWorkers, type JobWorkerOptions } from './worker.js'
export { countJobsByKindAndState, findJobById, listFailedJobs, retryFailedJob } from './store.js'
export { jobHandlers, periodicJobs, pruneFinishedJobs, PruneFinishedJobs } from './maintenance.js'
