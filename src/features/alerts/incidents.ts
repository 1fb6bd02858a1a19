import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import type { AlertRow, ProjectRow } from '../../db/schema.js'
import type { JobContext } from '../../jobs/index.js'
import { canOpenIncidentIn, closeIncident, isOpenIncident, openIncident } from '../issues/index.js'
import { createAlertSystemNote } from '../notes/index.js'
import { alertBot } from './bot.js'
import { findAlertById, linkAlertToIssue, lockAlert } from './incident-store.js'
import { findProjectsByIds } from '../access/index.js'

// GL AlertManagement::CreateAlertIssueService: an alert without a title of its own opens "New: Incident <iid>".
const DEFAULT_ALERT_TITLE = 'New: Alert'

const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'info', 'unknown']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** The job's context acting as the alert bot inside `trx`, at one moment for the whole change. */
function asAlertBot(ctx: JobContext, trx: Db, bot: User, now: Date): JobContext {
  return { ...ctx, db: trx, caller: { user: bot, credential: null, sudoFrom: null }, now: () => now }
}

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
  if (!project || !canOpenIncidentIn(project)) {
    ctx.log.warn({ alertId, projectId: alert.project_id }, 'Cannot process an Incident: You have no permissions')
    return
  }
  const now = ctx.now()
  const bot = await alertBot(ctx.db, now)
  await ctx.db.transaction().execute(async (trx) => {
    const current = await lockAlert(trx, alertId)
    if (!current || current.issue_id !== null) return
    const issue = await openIncident(asAlertBot(ctx, trx, bot, now), project, {
      title: current.title === DEFAULT_ALERT_TITLE ? null : current.title,
      description: incidentDescription(current, project, ctx.config.externalUrl),
    })
    await linkAlertToIssue(trx, current.id, issue.id, now.toISOString())
    // GL SystemNotes::AlertManagementService#new_alert_issue; the reference is local to the alert's project.
    await createAlertSystemNote(
      trx,
      { id: current.id, projectId: project.id },
      bot.id,
      `created incident #${issue.iid} for this alert`,
      now,
    )
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
  if (!(await isOpenIncident(ctx, alert.issue_id))) return
  const now = ctx.now()
  const bot = await alertBot(ctx.db, now)
  await ctx.db.transaction().execute(async (trx) => {
    const current = await lockAlert(trx, alertId)
    if (!current || current.issue_id === null) return
    await closeIncident(asAlertBot(ctx, trx, bot, now), current.issue_id, 'alert_resolved')
  })
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
