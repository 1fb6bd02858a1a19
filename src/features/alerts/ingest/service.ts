import { createHash, timingSafeEqual } from 'node:crypto'
import { tierIncludes } from '../../../core/access.js'
import { TtlCache } from '../../../core/ttl-cache.js'
import type { Context } from '../../../core/context.js'
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
import type { AlertIngestQueue } from './queue.js'

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

const projectCaches = new WeakMap<Db, TtlCache<WebhookProject | null>>()
const integrationCaches = new WeakMap<Db, TtlCache<AlertIntegrationRow | null>>()

function cacheOf<T>(caches: WeakMap<Db, TtlCache<T>>, db: Db): TtlCache<T> {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = new TtlCache<T>(CACHE_MILLIS, { keepMisses: false })))
  return cache
}

/** The project at this full path, any letter case (GL Project.find_by_full_path, redirects not followed). */
export function findWebhookProject(db: Db, fullPath: string): Promise<WebhookProject | null> {
  return cacheOf(projectCaches, db).get(fullPath.toLowerCase(), async () => {
    const row = await db
      .selectFrom('projects')
      .select(['id', 'pending_delete'])
      .where((eb) => eb(eb.fn('lower', ['full_path']), '=', fullPath.toLowerCase()))
      .executeTakeFirst()
    return row ? { id: Number(row.id), pendingDelete: !!row.pending_delete } : null
  })
}

function findIntegration(db: Db, projectId: number, identifier: string): Promise<AlertIntegrationRow | null> {
  return cacheOf(integrationCaches, db).get(
    `${projectId}/${identifier}`,
    async () => (await findActiveIntegration(db, projectId, identifier)) ?? null,
  )
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

function mappingsOf(integration: AlertIntegrationRow): AttributeMapping[] {
  try {
    const parsed = JSON.parse(integration.payload_attribute_mappings) as unknown
    return Array.isArray(parsed) ? (parsed as AttributeMapping[]) : []
  } catch {
    return []
  }
}

export type WebhookAnswer = { status: 200; body: { iid: number; title: string }[] } | { status: 400 | 401 | 403 | 404; body: null }

export interface WebhookRequest {
  /** The project path of the URL. */
  fullPath: string
  endpointIdentifier: string
  authorization: string | undefined
  /** The JSON body, parsed. */
  payload: Record<string, unknown>
  /** Its size in bytes as received. */
  bytes: number
  /** The body as received, stored as the payload of a generic alert. */
  raw: string
}

/**
 * One webhook request (GL Projects::Alerting::NotifyService and Projects::Prometheus::Alerts::NotifyService), in
 * their order: project, payload limits, active integration, key; then the alerts are stored with the other pending
 * requests' alerts and the request is answered once they are committed.
 */
export async function receiveAlerts(ctx: Context, queue: AlertIngestQueue, request: WebhookRequest): Promise<WebhookAnswer> {
  const project = await findWebhookProject(ctx.db, request.fullPath)
  // A project marked for deletion is gone, as for every other route.
  if (!project || project.pendingDelete) return { status: 404, body: null }
  if (request.bytes > MAX_PAYLOAD_BYTES || depthExceeds(request.payload, MAX_PAYLOAD_DEPTH)) return { status: 400, body: null }
  // The payload chooses the service, whatever URL it came to (GL NotificationsController#notify_service_class).
  const prometheus = isPrometheusPayload(request.payload)
  const integration = await findIntegration(ctx.db, project.id, request.endpointIdentifier)
  if (!integration) return { status: prometheus ? 401 : 403, body: null }
  if (!keyMatches(keyOf(request.authorization), integration.token)) return { status: 401, body: null }

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
    if (!alert) return { status: 400, body: null }
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
  }
  const outcome: SubmissionOutcome = alerts.length === 0 ? { ok: true, alerts: [] } : await queue.submit(submission)
  if (!outcome.ok) return { status: 400, body: null }
  return { status: 200, body: outcome.alerts }
}
