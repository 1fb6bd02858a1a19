import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { findProjectById } from '../../access/index.js'
import { alertWebUrl, SEVERITY_NAMES, STATUS_NAMES } from '../../alerts/index.js'
import { rubyUtc } from './formats.js'
import type { HookPayload } from './index.js'
import { findHookAlert } from './store.js'

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
      url: alertWebUrl({ externalUrl: ctx.config.externalUrl, projectFullPath: project.full_path }, alert.iid),
      severity: SEVERITY_NAMES[alert.severity] ?? 'critical',
      events: alert.events,
      status: STATUS_NAMES[alert.status] ?? 'triggered',
      started_at: rubyUtc(alert.started_at),
    },
  }
  return [{ event: 'Alert Hook', trigger: 'alert_events', scope: 'project', body }]
}
