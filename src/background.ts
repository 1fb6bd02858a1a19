import type { JobHandler, PeriodicJob } from './jobs/index.js'
import { jobHandlers as queueJobHandlers, periodicJobs as queuePeriodicJobs } from './jobs/index.js'
import { jobHandlers as eventJobHandlers, periodicJobs as eventPeriodicJobs } from './features/event-log/index.js'
import { jobHandlers as forkJobHandlers } from './features/forks/index.js'
import { jobHandlers as projectJobHandlers } from './features/projects/index.js'
import { jobHandlers as groupJobHandlers } from './features/groups/index.js'
import { jobHandlers as repositoryJobHandlers } from './features/repositories/index.js'
import { jobHandlers as sessionJobHandlers, periodicJobs as sessionPeriodicJobs } from './features/sessions/index.js'
import { jobHandlers as snippetJobHandlers } from './features/snippets/index.js'
import { jobHandlers as storageMoveJobHandlers } from './features/storage-moves/index.js'
import { jobHandlers as alertJobHandlers } from './features/alerts/index.js'
import { jobHandlers as webhookJobHandlers, periodicJobs as webhookPeriodicJobs } from './features/webhooks/index.js'
import { jobHandlers as mergeRequestJobHandlers } from './features/merge-requests/index.js'
import { jobHandlers as mailJobHandlers, periodicJobs as mailPeriodicJobs } from './features/mail/index.js'

/** What runs each kind of job, over every feature: the server's worker and the tests' use the same list. */
export const jobHandlers: JobHandler[] = [
  ...queueJobHandlers,
  ...eventJobHandlers,
  ...projectJobHandlers,
  ...groupJobHandlers,
  ...repositoryJobHandlers,
  ...sessionJobHandlers,
  ...forkJobHandlers,
  ...snippetJobHandlers,
  ...storageMoveJobHandlers,
  ...alertJobHandlers,
  ...webhookJobHandlers,
  ...mergeRequestJobHandlers,
  ...mailJobHandlers,
]

/** Jobs every node schedules on a timer (once per slot across nodes). */
export const periodicJobs: PeriodicJob[] = [
  ...queuePeriodicJobs,
  ...eventPeriodicJobs,
  ...sessionPeriodicJobs,
  ...mailPeriodicJobs,
  ...webhookPeriodicJobs,
]
