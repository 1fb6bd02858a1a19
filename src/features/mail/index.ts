import { every, handle, type JobHandler, type PeriodicJob } from '../../jobs/index.js'
import { DeliverMails, PruneSentMails } from './jobs.js'
import { deliverMails, pruneSentMails } from './service.js'

export { mailIdentity, queueMails, type OutgoingMail } from './service.js'
export { mailButton, mailLayout } from './layout.js'

/** Sending queued mail, run by every node's worker. */
export const jobHandlers: JobHandler[] = [
  handle(DeliverMails, (ctx, payload) => deliverMails(ctx, payload.mailIds)),
  handle(PruneSentMails, async (ctx) => void (await pruneSentMails(ctx))),
]

export const periodicJobs: PeriodicJob[] = [every(60 * 60_000, PruneSentMails, {})]
