import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Sends every webhook delivery due, in batches; any number of them may run at once, each takes its own deliveries. */
export const SendWebhooks = defineJob('webhooks.send', Type.Object({}))

/** Removes log entries past their two days. */
export const PruneWebhookLogs = defineJob('webhooks.prune-logs', Type.Object({}))
