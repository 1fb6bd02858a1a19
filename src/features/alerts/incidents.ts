import type { JobContext } from '../../jobs/index.js'

/** Opens the incident of a new alert: an issue of type incident, linked to the alert. Runs twice harmlessly. */
export async function createIncidentForAlert(_ctx: JobContext, _alertId: number): Promise<void> {}

/** Closes the incident of a resolved alert. Runs twice harmlessly. */
export async function closeIncidentOfAlert(_ctx: JobContext, _alertId: number): Promise<void> {}
