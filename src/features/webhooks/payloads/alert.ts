import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { findProjectById } from '../../access/index.js'
import { rubyUtc } from './formats.js'
import type { HookPayload } from './index.js'
import { findHookAlert } from './store.js'

// GL AlertManagement::Alert's severity and status enums, by stored number. Read here rather than from the alerts feature,
// which tells of changes itself: what tells the outside depends on no feature that tells it.
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown']
const STATUSES = ['triggered', 'acknowledged', 'resolved', 'ignored']

/**
 * A new alert, as GitLab hands it to what listens for `alert_events` (GL AlertManagement::AlertProcessing
 * #process_new_alert, then Alert#execute_integrations with Gitlab::DataBuilder::Alert): only creation is told, never a
 * status change or a repeat. GitLab's project hooks have no such switch; its integrations (Slack and the like) do.
 */
export async function alertPayloads(ctx: Context, trx: Db, change: Extract<Change, { kind: 'alert' }>): Promise<HookPayload[]> {
  if (change.action !== 'create') return []
  const alert = await findHookAlert(trx, change.alertId)
  const project = alert && (await findProjectById(trx, alert.project_id))[0]
  if (!alert || !project) return []
  const body = {
    object_kind: 'alert',
    object_attributes: {
      title: alert.title,
      url: `${ctx.config.externalUrl}/${project.full_path}/-/alert_management/${alert.iid}/details`,
      severity: SEVERITIES[alert.severity] ?? 'critical',
      events: alert.events,
      status: STATUSES[alert.status] ?? 'triggered',
      started_at: rubyUtc(alert.started_at),
    },
  }
  return [{ event: 'Alert Hook', trigger: 'alert_events', scope: 'project', body }]
}
