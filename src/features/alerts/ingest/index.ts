// The alert webhooks' entry points: the group-commit queue and one request's handling.
export { createAlertIngestQueue, type AlertIngestQueue } from './queue.js'
export { applySubmissions, type AlertSubmission, type IngestIntegration, type SubmissionOutcome } from './batch.js'
export { receiveAlerts, CACHE_MILLIS, MAX_PAYLOAD_BYTES, MAX_PAYLOAD_DEPTH, type WebhookAnswer, type WebhookRequest } from './service.js'
