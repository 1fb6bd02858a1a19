import { Type } from '@sinclair/typebox'
import { defineJob } from '../../jobs/index.js'

/** Opens an incident from a new alert when its integration says so (GL IncidentManagement::ProcessAlertWorkerV2). */
export const CreateIncident = defineJob('alerts.create-incident', Type.Object({ alertId: Type.Integer() }))

/** Closes a resolved alert's incident when its integration says so (GL IncidentManagement auto-close). */
export const CloseIncident = defineJob('alerts.close-incident', Type.Object({ alertId: Type.Integer() }))
