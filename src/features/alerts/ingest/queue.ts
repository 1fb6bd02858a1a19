import type { Log } from '../../../core/context.js'
import { GroupCommitQueue } from '../../../db/group-commit.js'
import type { Db } from '../../../db/index.js'
import { alertBot } from '../bot.js'
import { applySubmissions, type AlertSubmission, type SubmissionOutcome } from './batch.js'

/** Webhook alerts written in group commits: each request is answered once its batch's transaction committed. */
export type AlertIngestQueue = GroupCommitQueue<AlertSubmission, SubmissionOutcome>

export function createAlertIngestQueue(db: Db, log: Log, clock: () => Date): AlertIngestQueue {
  // The bot user exists once created: one look-up per queue, before the first batch's transaction.
  let botId: number | null = null
  return new GroupCommitQueue(db, log, clock, {
    what: 'alerts',
    failed: { ok: false },
    async prepare() {
      botId ??= (await alertBot(db, clock())).id
    },
    apply: (trx, submissions, now) => applySubmissions(trx, submissions, botId as number, now),
  })
}
