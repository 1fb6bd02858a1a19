import { Type } from '@sinclair/typebox'
import { defineJob, every, handle } from '../../jobs/index.js'
import { deleteExpiredSessions } from './store.js'

/** How often expired sessions are removed. */
export const SESSION_SWEEP_INTERVAL_MS = 60 * 60 * 1000

// Deletes only what has expired by the run's clock, so a second run of a slot removes nothing more.
export const RemoveExpiredSessions = defineJob('sessions.remove-expired', Type.Object({}))

export const jobHandlers = [
  handle(RemoveExpiredSessions, async (ctx) => {
    await deleteExpiredSessions(ctx.db, ctx.now().toISOString())
  }),
]

export const periodicJobs = [every(SESSION_SWEEP_INTERVAL_MS, RemoveExpiredSessions, {})]
