import type { Context } from '../../core/context.js'
import type { LoadedProject } from '../access/index.js'
import { canReadAlerts } from './policy.js'
import { SEVERITY_NAMES, STATUS_NAMES } from './present.js'
import { findAlertOfIssue } from './store.js'

/** The alert an incident was opened for, as the incident's page shows it (GL incidents' highlight bar). */
export interface IncidentAlert {
  iid: number
  title: string
  severity: (typeof SEVERITY_NAMES)[number]
  status: (typeof STATUS_NAMES)[number]
  startedAt: string
  events: number
  /** The alert's details page. */
  path: string
}

/** The incident's alert, for those who may read alerts (GL `read_alert_management_alert`); null otherwise or when none. */
export async function findIncidentAlert(ctx: Context, loaded: LoadedProject, issueId: number): Promise<IncidentAlert | null> {
  if (!canReadAlerts(loaded.access)) return null
  const alert = await findAlertOfIssue(ctx.db, loaded.project.id, issueId)
  if (!alert) return null
  return {
    iid: alert.iid,
    title: alert.title,
    severity: SEVERITY_NAMES[alert.severity] ?? 'critical',
    status: STATUS_NAMES[alert.status] ?? 'triggered',
    startedAt: alert.started_at,
    events: alert.events,
    path: `/${loaded.project.full_path}/-/alert_management/${alert.iid}/details`,
  }
}
