import { FeatureAccess } from '../../core/access.js'
import { allocateInternalId } from '../../db/internal-ids.js'
import type { AlertRow, ProjectRow } from '../../db/schema.js'
import type { JobContext } from '../../jobs/index.js'
import { recordEvent } from '../event-log/index.js'
import { recordCreation } from '../issuables/index.js'
import { findIssuesByIds, insertIssue, updateIssueRow } from '../issues/index.js'
import { createAlertSystemNote, createSystemNote } from '../notes/index.js'
import { alertBot } from './bot.js'
import { findAlertById, linkAlertToIssue, lockAlert } from './incident-store.js'
import { findProjectsByIds } from '../access/index.js'

// GL AlertManagement::CreateAlertIssueService: an alert without a title of its own opens "New: Incident <iid>".
const DEFAULT_ALERT_TITLE = 'New: Alert'
const DEFAULT_INCIDENT_TITLE = 'New: Incident'

const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'info', 'unknown']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/**
 * Opens the incident of a new alert: an issue of type incident in the alert's project, authored by the alert bot
 * and linked to the alert (GL IncidentManagement::ProcessAlertWorkerV2, AlertManagement::CreateAlertIssueService).
 * An alert that is gone or already has an incident is left alone, so a second run changes nothing.
 */
export async function createIncidentForAlert(ctx: JobContext, alertId: number): Promise<void> {
  const alert = await findAlertById(ctx.db, alertId)
  if (!alert || alert.issue_id !== null) return
  const [project] = await findProjectsByIds(ctx.db, [alert.project_id])
  // GL `user.can?(:create_issue, project)`: not in a project without issues, archived or being deleted.
  if (!project || !mayOpenIssues(project)) {
    ctx.log.warn({ alertId, projectId: alert.project_id }, 'Cannot process an Incident: You have no permissions')
    return
  }
  const now = ctx.now()
  const bot = await alertBot(ctx.db, now)
  await ctx.db.transaction().execute(async (trx) => {
    const current = await lockAlert(trx, alertId)
    if (!current || current.issue_id !== null) return
    const at = now.toISOString()
    const iid = await allocateInternalId(trx, project.id, 'issues')
    const issue = await insertIssue(trx, {
      project_id: project.id,
      iid,
      author_id: bot.id,
      title: current.title === DEFAULT_ALERT_TITLE ? `${DEFAULT_INCIDENT_TITLE} ${iid}` : current.title,
      description: incidentDescription(current, project, ctx.config.externalUrl),
      state: 'opened',
      issue_type: 'incident',
      created_at: at,
      updated_at: at,
    })
    await recordCreation(trx, { type: 'Issue', id: issue.id, projectId: project.id }, bot.id, now)
    await linkAlertToIssue(trx, current.id, issue.id, at)
    // GL SystemNotes::AlertManagementService#new_alert_issue; the reference is local to the alert's project.
    await createAlertSystemNote(trx, { id: current.id, projectId: project.id }, bot.id, `created incident #${iid} for this alert`, now)
  })
}

/**
 * Closes the incident of a resolved alert as the alert bot, if it is still an open incident (GL
 * IncidentManagement::CloseIncidentWorker). An alert that is gone, has no incident, or whose incident is
 * already closed is left alone, so a second run changes nothing.
 */
export async function closeIncidentOfAlert(ctx: JobContext, alertId: number): Promise<void> {
  const alert = await findAlertById(ctx.db, alertId)
  if (!alert || alert.issue_id === null) return
  const [incident] = await findIssuesByIds(ctx.db, [alert.issue_id])
  if (!incident || incident.issue_type !== 'incident' || incident.state !== 'opened') return
  const now = ctx.now()
  const bot = await alertBot(ctx.db, now)
  await ctx.db.transaction().execute(async (trx) => {
    const current = await lockAlert(trx, alertId)
    if (!current || current.issue_id === null) return
    const [issue] = await findIssuesByIds(trx, [current.issue_id])
    if (!issue || issue.issue_type !== 'incident' || issue.state !== 'opened') return
    const at = now.toISOString()
    await updateIssueRow(trx, issue.id, { state: 'closed', closed_at: at, closed_by_id: bot.id, updated_at: at })
    const noteable = { type: 'Issue' as const, id: issue.id, projectId: issue.project_id }
    // GL closes without the plain "closed" note and records the state event shown as this note (StateNote,
    // `close_auto_resolve_prometheus_alert`); the close event is Issues::CloseService's.
    await createSystemNote(trx, noteable, bot.id, 'automatically closed this incident because the alert resolved', now)
    await recordEvent(trx, {
      projectId: issue.project_id,
      authorId: bot.id,
      action: 'closed',
      target: { type: 'Issue', id: issue.id },
      at: now,
    })
  })
}

function mayOpenIssues(project: ProjectRow): boolean {
  return project.issues_access_level > FeatureAccess.DISABLED && !project.archived && !project.pending_delete
}

/**
 * The incident's description (GL AlertManagement::AlertPresenter#issue_description): the alert's summary, then
 * the alert's own incident markdown after a horizontal rule. Lines end in two spaces, Markdown's line break.
 */
export function incidentDescription(alert: AlertRow, project: Pick<ProjectRow, 'full_path'>, externalUrl: string): string {
  const payload = parsePayload(alert.payload)
  // GL Gitlab::AlertManagement::Payload.parse: the stored payload is read as Prometheus's when the alert came from it.
  const prometheus = alert.monitoring_tool === 'Prometheus'
  const fullQuery = prometheus ? queryOf(payload) : null
  const hosts = parseHosts(alert.hosts)
  const items = [listItem('Start time', startTime(alert.started_at)), listItem('Severity', SEVERITY_NAMES[alert.severity] ?? 'critical')]
  if (fullQuery) items.push(listItem('full_query', `\`${fullQuery}\``))
  if (alert.service) items.push(listItem('Service', alert.service))
  if (alert.monitoring_tool) items.push(listItem('Monitoring tool', alert.monitoring_tool))
  if (hosts.length > 0) items.push(listItem('Hosts', hosts.join(' ')))
  if (alert.description && alert.description.trim() !== '') items.push(listItem('Description', alert.description))
  items.push(listItem('svc alert', `${externalUrl}/${project.full_path}/-/alert_management/${alert.iid}/details`))
  const summary = `${items.join('  \n')}\n`
  const markdown = prometheus ? incidentMarkdownOf(payload) : null
  return markdown ? `${summary}\n\n---\n\n${markdown}` : summary
}

function listItem(key: string, value: string): string {
  return `**${key}:** ${value}`.trim()
}

/** GL AlertPresenter#start_time: `strftime('%d %B %Y, %-l:%M%p (%Z)')` in UTC, e.g. "27 April 2020, 10:10AM (UTC)". */
export function startTime(iso: string): string {
  const at = new Date(iso)
  const hours = at.getUTCHours()
  const day = String(at.getUTCDate()).padStart(2, '0')
  const minutes = String(at.getUTCMinutes()).padStart(2, '0')
  return `${day} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${hours % 12 || 12}:${minutes}${hours < 12 ? 'AM' : 'PM'} (UTC)`
}

function parsePayload(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

function parseHosts(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) ? value.map(String) : []
  } catch {
    return []
  }
}

function objectAt(payload: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = payload[key]
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** GL Payload::Prometheus#full_query: the `g0.expr` query parameter of `generatorURL`. */
function queryOf(payload: Record<string, unknown>): string | null {
  const url = payload.generatorURL
  if (typeof url !== 'string') return null
  try {
    return new URL(url).searchParams.get('g0.expr') || null
  } catch {
    return null
  }
}

/** GL Payload::Prometheus#alert_markdown: `annotations.svc_incident_markdown` (GitLab's `gitlab_incident_markdown` as alias). */
function incidentMarkdownOf(payload: Record<string, unknown>): string | null {
  const annotations = objectAt(payload, 'annotations')
  for (const key of ['svc_incident_markdown', 'gitlab_incident_markdown']) {
    const value = annotations[key]
    if (typeof value === 'string' && value.trim() !== '') return value
  }
  return null
}
