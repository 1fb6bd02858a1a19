// The alert webhooks' entry points: the instance's intake (group-commit queue, look-ups) and one request's handling.
export { createAlertIngestQueue, type AlertIngestQueue } from './queue.js'
export { applySubmissions, type AlertSubmission, type IngestIntegration, type SubmissionOutcome } from './batch.js'
export { webhookStatusOf } from './answers.js'
export {
  createAlertIntake,
  readWebhookBody,
  receiveAlerts,
  CACHE_MILLIS,
  MAX_PAYLOAD_BYTES,
  MAX_PAYLOAD_DEPTH,
  type AlertIntake,
  type AlertIntakeOutcome,
  type WebhookBody,
  type WebhookRequest,
} from './service.js'
