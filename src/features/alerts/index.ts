import { handle, type JobHandler } from '../../jobs/index.js'
import { closeIncidentOfAlert, createIncidentForAlert } from './incidents.js'
import { CloseIncident, CreateIncident } from './jobs.js'

export const jobHandlers: JobHandler[] = [
  handle(CreateIncident, (ctx, payload) => createIncidentForAlert(ctx, payload.alertId)),
  handle(CloseIncident, (ctx, payload) => closeIncidentOfAlert(ctx, payload.alertId)),
]

// An incident's page links the alert it was opened for.
export { findIncidentAlert, type IncidentAlert } from './incident-alert.js'
