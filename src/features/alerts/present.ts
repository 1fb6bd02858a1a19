import type { AlertRow } from '../../db/schema.js'

/** GL AlertManagement::Alert severity enum, by stored number. */
export const SEVERITY_NAMES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const
/** GL AlertManagement::Alert status enum, by stored number. */
export const STATUS_NAMES = ['triggered', 'acknowledged', 'resolved', 'ignored'] as const
export type AlertStatusName = (typeof STATUS_NAMES)[number]

export const Status = { TRIGGERED: 0, ACKNOWLEDGED: 1, RESOLVED: 2, IGNORED: 3 } as const

/** An alert row with what its entity shows of the rows it points to. */
export interface AlertView extends AlertRow {
  issue_iid: number | null
  environment_name: string | null
}

export interface AlertPresentOptions {
  externalUrl: string
  projectFullPath: string
}

// Payload keys that the alert shows as its own fields, and `startsAt` (GL AlertManagement::Alert#details:
// `payload.except(*attributes.keys, *DETAILS_IGNORED_PARAMS)`).
const DETAILS_HIDDEN = new Set([
  'id',
  'iid',
  'project_id',
  'issue_id',
  'title',
  'description',
  'severity',
  'status',
  'started_at',
  'ended_at',
  'monitoring_tool',
  'service',
  'hosts',
  'fingerprint',
  'environment_id',
  'payload',
  'events',
  'created_at',
  'updated_at',
  'domain',
  'prometheus_alert_id',
  'startsAt',
])

/** Nested keys joined with dots (GL Gitlab::Utils::InlineHash.merge_keys). */
function inlineKeys(value: Record<string, unknown>, prefix: string, into: Record<string, unknown>) {
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key
    if (child !== null && typeof child === 'object' && !Array.isArray(child)) inlineKeys(child as Record<string, unknown>, path, into)
    else into[path] = child
  }
  return into
}

export function parsePayload(alert: Pick<AlertRow, 'payload'>): unknown {
  try {
    return JSON.parse(alert.payload) as unknown
  } catch {
    return {}
  }
}

/** What the payload says beyond the alert's own fields, flattened (GL AlertManagement::Alert#details). */
export function alertDetails(payload: unknown): Record<string, unknown> {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return {}
  const rest = Object.fromEntries(Object.entries(payload).filter(([key]) => !DETAILS_HIDDEN.has(key)))
  return inlineKeys(rest, '', {})
}

/** The whole payload as key/value pairs, nested keys joined with dots, in the payload's order. */
export function payloadEntries(payload: unknown): [string, unknown][] {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return []
  return Object.entries(inlineKeys(payload as Record<string, unknown>, '', {}))
}

export function alertWebUrl(options: AlertPresentOptions, iid: number): string {
  return `${options.externalUrl}/${options.projectFullPath}/-/alert_management/${iid}/details`
}

/** The alert entity: GraphQL AlertManagementAlert's fields in snake case. */
export function presentAlert(alert: AlertView, options: AlertPresentOptions) {
  const payload = parsePayload(alert)
  return {
    id: alert.id,
    iid: alert.iid,
    title: alert.title,
    description: alert.description,
    severity: SEVERITY_NAMES[alert.severity] ?? 'critical',
    status: STATUS_NAMES[alert.status] ?? 'triggered',
    service: alert.service,
    monitoring_tool: alert.monitoring_tool,
    hosts: JSON.parse(alert.hosts) as string[],
    started_at: alert.started_at,
    ended_at: alert.ended_at,
    event_count: alert.events,
    fingerprint: alert.fingerprint,
    environment:
      alert.environment_id !== null && alert.environment_name !== null ? { id: alert.environment_id, name: alert.environment_name } : null,
    runbook: alert.runbook,
    details: alertDetails(payload),
    payload,
    issue_iid: alert.issue_iid,
    created_at: alert.created_at,
    updated_at: alert.updated_at,
    web_url: alertWebUrl(options, alert.iid),
  }
}
