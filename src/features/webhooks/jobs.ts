import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Sends attempt `attempt` of a delivery; a later attempt is a new job, so a run repeated after a crash sends again. */
export const DeliverWebhook = defineJob(
  'webhooks.deliver',
  Type.Object({ deliveryId: Type.Integer(), attempt: Type.Integer({ minimum: 1 }) }),
)

/** Removes log entries past their two days. */
export const PruneWebhookLogs = defineJob('webhooks.prune-logs', Type.Object({}))
