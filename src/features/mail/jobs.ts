import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Attempts at a batch before the mails still unsent in it fail for good: with the worker's backoff, about 85 minutes. */
export const DELIVERY_MAX_ATTEMPTS = 10

/** Sends the outbox mails named (those not sent yet): one job per batch of a queueing. */
export const DeliverMails = defineJob('mail.deliver', Type.Object({ mailIds: Type.Array(Type.Integer(), { minItems: 1 }) }), {
  maxAttempts: DELIVERY_MAX_ATTEMPTS,
})

/** Forgets mails sent long enough ago. */
export const PruneSentMails = defineJob('mail.prune-sent', Type.Object({}))
