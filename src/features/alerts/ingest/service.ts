import { createHash, timingSafeEqual } from 'node:crypto'
import { tierIncludes } from '../../../core/access.js'
import { TtlCache } from '../../../core/ttl-cache.js'
import type { Context, Log } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import type { AlertIntegrationRow } from '../../../db/schema.js'
import { findActiveIntegration } from '../integrations/index.js'
import type { AlertSubmission, SubmissionOutcome } from './batch.js'
import {
  isPrometheusPayload,
  parseGeneric,
  parsePrometheusItem,
  PROMETHEUS_TOOL,
  type AttributeMapping,
  type ParsedAlert,
} from './parsers/index.js'
import { createAlertIngestQueue, type AlertIngestQueue } from './queue.js'

/** GL Gitlab::Utils::DeepSize defaults: 1 MB and 100 levels (as JSON bytes here). */
export const MAX_PAYLOAD_BYTES = 1024 * 1024
export const MAX_PAYLOAD_DEPTH = 100

/**
 * Looked-up projects and integrations are reused for this long: another node's change (an integration switched off,
 * a key reset) takes effect within it.
 */
export const CACHE_MILLIS = 1000

export interface WebhookProject {
  id: number
  pendingDelete: boolean
}

/** One instance's alert intake: the group-commit queue every webhook request joins and its short-lived look-ups. */
export interface AlertIntake {
  queue: AlertIngestQueue
  projects: TtlCache<WebhookProject | null>
  integrations: TtlCache<AlertIntegrationRow | null>
}

/** Made once per app instance; `drain` it on shutdown. */
export function createAlertIntake(db: Db, log: Log, clock: () => Date): AlertIntake {
  return {
    queue: createAlertIngestQueue(db, log, clock),
    projects: new TtlCache(CACHE_MILLIS, { keepMisses: false }),
    integrations: new TtlCache(CACHE_MILLIS, { keepMisses: false }),
  }
}

/** The project at this full path, any letter case (GL Project.find_by_full_path, redirects not followed). */
function findWebhookProject(intake: AlertIntake, db: Db, fullPath: string): Promise<WebhookProject | null> {
  return intake.projects.get(fullPath.toLowerCase(), async () => {
    const row = await db
      .selectFrom('projects')
      .select(['id', 'pending_delete'])
      .where((eb) => eb(eb.fn('lower', ['full_path']), '=', fullPath.toLowerCase()))
      .executeTakeFirst()
    return row ? { id: Number(row.id), pendingDelete: !!row.pending_delete } : null
  })
}

function findIntegration(intake: AlertIntake, db: Db, projectId: number, identifier: string): Promise<AlertIntegrationRow | null> {
  return intake.integrations.get(`${projectId}/${identifier}`, async () => (await findActiveIntegration(db, projectId, identifier)) ?? null)
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** Constant-time comparison of the sent key with the integration's. */
export function keyMatches(sent: string | null, expected: string): boolean {
  if (sent === null || sent === '') return false
  return timingSafeEqual(digest(sent), digest(expected))
}

/** The key of `Authorization: Bearer <key>`, else the password of Basic authentication (GL `extract_alert_manager_token`). */
export function keyOf(authorization: string | undefined): string | null {
  if (!authorization) return null
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)
  if (bearer) return bearer[1].trim()
  const basic = /^Basic\s+(.+)$/i.exec(authorization)
  if (!basic) return null
  const decoded = Buffer.from(basic[1].trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? null : decoded.slice(colon + 1)
}

/** Nesting depth of a JSON value, every object and array one level; stops counting past `limit`. */
export function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number]
    if (current === null || typeof current !== 'object') continue
    if (depth > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return false
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * The payload with every string as the databases can store it: NULs dropped (PostgreSQL text cannot hold them) and
 * lone surrogates made U+FFFD (what both databases would store instead), so that an alert with such text is stored
 * readable, the same on both, rather than failing. The payload text kept with the alert is untouched: JSON escapes
 * them. Called on payloads within the depth limit only.
 */
function storableStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd')
  if (Array.isArray(value)) return value.map(storableStrings)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [storableStrings(key) as string, storableStrings(child)]))
}

function mappingsOf(integration: AlertIntegrationRow): AttributeMapping[] {
  try {
    const parsed = JSON.parse(integration.payload_attribute_mappings) as unknown
    return Array.isArray(parsed) ? (parsed as AttributeMapping[]) : []
  } catch {
    return []
  }
}

/**
 * What became of one webhook request: its alerts were accepted (those created, counted or resolved), or why not.
 * `not-accepted`: over the payload limits, unreadable, or a generic alert neither stored nor matched.
 */
export type AlertIntakeOutcome =
  | { outcome: 'accepted'; alerts: { iid: number; title: string }[] }
  | { outcome: 'project-not-found' }
  | { outcome: 'not-accepted' }
  | { outcome: 'integration-inactive' }
  | { outcome: 'key-refused' }

/** A webhook body as GitLab reads it: JSON, empty meaning `{}`; JSON that is not an object is wrapped as Rails does. */
export interface WebhookBody {
  payload: Record<string, unknown>
  /** Its size in bytes as received. */
  bytes: number
  /** What a generic alert stores as its payload. */
  raw: string
}

/** The body of a webhook request, or null when it is not JSON. */
export function readWebhookBody(buffer: Buffer): WebhookBody | null {
  const text = buffer.toString('utf8')
  if (text.trim() === '') return { payload: {}, bytes: buffer.length, raw: '{}' }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    return { payload: parsed as Record<string, unknown>, bytes: buffer.length, raw: text }
  }
  // Rails wraps a JSON body that is not an object under `_json`. A payload over the depth limit is refused before its
  // text is used, and JSON.stringify would overflow the stack on one nested deep enough.
  const payload = { _json: parsed }
  return { payload, bytes: buffer.length, raw: depthExceeds(payload, MAX_PAYLOAD_DEPTH) ? '' : JSON.stringify(payload) }
}

export interface WebhookRequest extends WebhookBody {
  /** The project path of the URL. */
  fullPath: string
  endpointIdentifier: string
  /** The integration key the request carries, if any. */
  key: string | null
}

/**
 * One webhook request (GL Projects::Alerting::NotifyService and Projects::Prometheus::Alerts::NotifyService), in
 * their order: project, payload limits, active integration, key; then the alerts are stored with the other pending
 * requests' alerts and the request is answered once they are committed.
 */
export async function receiveAlerts(ctx: Context, intake: AlertIntake, request: WebhookRequest): Promise<AlertIntakeOutcome> {
  const project = await findWebhookProject(intake, ctx.db, request.fullPath)
  // A project marked for deletion is gone, as for every other route.
  if (!project || project.pendingDelete) return { outcome: 'project-not-found' }
  if (request.bytes > MAX_PAYLOAD_BYTES || depthExceeds(request.payload, MAX_PAYLOAD_DEPTH)) return { outcome: 'not-accepted' }
  request = { ...request, payload: storableStrings(request.payload) as Record<string, unknown> }
  // The payload chooses the service, whatever URL it came to (GL NotificationsController#notify_service_class).
  const prometheus = isPrometheusPayload(request.payload)
  const integration = await findIntegration(intake, ctx.db, project.id, request.endpointIdentifier)
  // Prometheus' service judges only the key, so no active integration means a refused key (GL Prometheus NotifyService).
  if (!integration) return { outcome: prometheus ? 'key-refused' : 'integration-inactive' }
  if (!keyMatches(request.key, integration.token)) return { outcome: 'key-refused' }

  const now = ctx.now()
  let alerts: ParsedAlert[]
  if (prometheus) {
    const items = Array.isArray(request.payload.alerts) ? (request.payload.alerts as unknown[]) : []
    alerts = items
      .map((item) => parsePrometheusItem(item, JSON.stringify(item), now))
      .filter((alert): alert is ParsedAlert => alert !== null)
  } else if (request.payload.monitoring_tool === PROMETHEUS_TOOL) {
    // GL Gitlab::AlertManagement::Payload.parse: a generic payload from "Prometheus" is read with Prometheus' paths.
    const alert = parsePrometheusItem(request.payload, request.raw, now)
    if (!alert) return { outcome: 'not-accepted' }
    alerts = [alert]
  } else {
    const premium = tierIncludes(ctx.config.tier, 'premium')
    alerts = [
      parseGeneric(request.payload, request.raw, {
        generateFingerprint: premium,
        mappings: premium && integration.type === 'http' ? mappingsOf(integration) : [],
        now,
      }),
    ]
  }
  const submission: AlertSubmission = {
    projectId: project.id,
    integration: {
      id: Number(integration.id),
      name: integration.name,
      createIncident: !!integration.create_incident,
      autoCloseIncident: !!integration.auto_close_incident,
    },
    alerts,
    kind: prometheus ? 'prometheus' : 'generic',
    ctx,
  }
  const stored: SubmissionOutcome = alerts.length === 0 ? { ok: true, alerts: [] } : await intake.queue.submit(submission)
  if (!stored.ok) return { outcome: 'not-accepted' }
  return { outcome: 'accepted', alerts: stored.alerts }
}
