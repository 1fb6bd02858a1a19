import { fingerprintOf, payloadFingerprint } from './fingerprint.js'
import { genericSeverity, prometheusSeverity } from './severity.js'
import { dig, firstValue, isBlank, parseTime, presence, rubyToS, truncate } from './values.js'

/** What one alert of a payload says, ready to be matched and stored. */
export interface ParsedAlert {
  title: string | null
  description: string | null
  service: string | null
  monitoringTool: string | null
  hosts: string[]
  /** GL severity enum number. */
  severity: number
  startedAt: string
  /** The payload's end time, when it gave one that parses. */
  endedAt: string | null
  /** A recovery: resolves the open alert with this fingerprint, creates nothing. */
  resolved: boolean
  fingerprint: string | null
  environmentName: string | null
  runbook: string | null
  /** The payload (one item of a monitoring-system payload) as received, JSON text. */
  payload: string
}

/** One custom field mapping of an HTTP integration (Premium and Ultimate). */
export interface AttributeMapping {
  field_name: string
  path: (string | number)[]
  type: string
  label?: string
}

type Path = readonly (string | number)[]

// GL AlertManagement::Alert length limits.
const TITLE_MAX = 200
const DESCRIPTION_MAX = 1000
const SERVICE_MAX = 100
const TOOL_MAX = 100
const HOSTS_MAX = 255

export const DEFAULT_TITLE = 'New: Alert'
export const PROMETHEUS_TOOL = 'Prometheus'

function text(value: unknown, max: number): string | null {
  const present = presence(value)
  if (present === undefined) return null
  return presence(truncate(rubyToS(present), max)) ?? null
}

function plain(value: unknown): string | null {
  const present = presence(value)
  return present === undefined ? null : rubyToS(present)
}

/** Ruby `Array(value)`: nil is empty, a hash its pairs, anything else itself alone. */
function rubyArray(value: unknown): unknown[] {
  if (value === null || value === undefined) return []
  if (Array.isArray(value)) return value
  if (typeof value === 'object') return Object.entries(value)
  return [value]
}

function flattenDeep(values: readonly unknown[]): unknown[] {
  return values.flatMap((value) => (Array.isArray(value) ? flattenDeep(value) : [value]))
}

/**
 * `Array(hosts).flatten`, cut so that the hosts joined fit 255 characters (GL Payload::Base#truncate_hosts). Nested
 * arrays are flattened before GitLab's "hosts array cannot be nested" validation could see them, so they are accepted.
 */
export function hostsOf(value: unknown): string[] {
  const present = presence(value)
  const hosts = flattenDeep(rubyArray(present)).map((host) => rubyToS(host))
  if (hosts.join('').length <= HOSTS_MAX) return hosts
  const kept: string[] = []
  for (const host of hosts) {
    const remaining = HOSTS_MAX - kept.join('').length
    if (remaining <= 0) break
    kept.push(truncate(host, remaining, ''))
  }
  return kept
}

function environmentNameOf(value: unknown): string | null {
  const present = presence(value)
  return present === undefined ? null : rubyToS(present)
}

export interface GenericOptions {
  /** Premium and Ultimate: payloads without a fingerprint get one generated from their content. */
  generateFingerprint: boolean
  /** Custom field mapping of the integration (Premium and Ultimate HTTP integrations), else empty. */
  mappings: readonly AttributeMapping[]
  now: Date
}

/** The default paths of the generic payload's fields (GL Payload::Generic), with svc's names before GitLab's. */
const GENERIC_PATHS: Record<string, Path[]> = {
  title: [['title']],
  description: [['description']],
  start_time: [['start_time']],
  end_time: [['end_time']],
  service: [['service']],
  monitoring_tool: [['monitoring_tool']],
  hosts: [['hosts']],
  severity: [['severity']],
  fingerprint: [['fingerprint']],
  svc_environment_name: [['svc_environment_name'], ['gitlab_environment_name']],
  runbook: [['runbook']],
}

/** A field's value: the mapped path first (EE Payload::Generic custom mapping), then, when it holds nothing, the default paths. */
function field(payload: unknown, name: string, mappings: readonly AttributeMapping[]): unknown {
  const mapping = mappings.find((m) => m.field_name === name)
  if (mapping && Array.isArray(mapping.path) && mapping.path.length > 0) {
    const mapped = dig(payload, mapping.path)
    if (mapped !== undefined && mapped !== null && mapped !== false) return mapped
  }
  return firstValue(payload, GENERIC_PATHS[name])
}

/** A generic payload (GL Payload::Generic and EE Payload::Generic). */
export function parseGeneric(payload: Record<string, unknown>, raw: string, options: GenericOptions): ParsedAlert {
  const get = (name: string) => field(payload, name, options.mappings)
  const endedAt = parseTime(get('end_time')) ?? null
  const explicit = get('fingerprint')
  let fingerprint = fingerprintOf(explicit)
  if (fingerprint === null && isBlank(explicit) && options.generateFingerprint) fingerprint = payloadFingerprint(payload)
  return {
    title: text(get('title'), TITLE_MAX) ?? DEFAULT_TITLE,
    description: text(get('description'), DESCRIPTION_MAX),
    service: text(get('service'), SERVICE_MAX),
    monitoringTool: text(get('monitoring_tool'), TOOL_MAX),
    hosts: hostsOf(get('hosts')),
    severity: genericSeverity(get('severity')),
    startedAt: parseTime(get('start_time')) ?? options.now.toISOString(),
    endedAt,
    resolved: endedAt !== null,
    fingerprint,
    environmentName: environmentNameOf(get('svc_environment_name')),
    runbook: plain(get('runbook')),
    payload: raw,
  }
}

/** `g0.expr` of the generator URL's query (GL Payload::Prometheus#full_query). */
function fullQueryOf(generatorUrl: unknown): string {
  if (typeof generatorUrl !== 'string' || generatorUrl === '') return ''
  try {
    return new URL(generatorUrl).searchParams.get('g0.expr') ?? ''
  } catch {
    return ''
  }
}

const TITLE_PATHS: Path[] = [
  ['annotations', 'title'],
  ['annotations', 'summary'],
  ['labels', 'alertname'],
]

/** Go's zero time, which Alertmanager sends as the `endsAt` of a firing alert, whose end it does not show. */
const GO_ZERO_TIME = '0001-01-01T00:00:00.000Z'

/**
 * One item of a monitoring-system payload (GL Payload::Prometheus), or a generic payload whose monitoring_tool says
 * Prometheus. Null when it lacks a title or startsAt (GL `has_required_attributes?`): the item is skipped.
 *
 * It is a recovery when its status is `resolved` (GitLab) or, unlike GitLab, when its `endsAt` is at or before the
 * time of receipt (spec README, decided difference: the contract's end time resolves the alert); a future `endsAt`
 * and the zero time, which stands for no end, do not resolve it.
 */
export function parsePrometheusItem(item: unknown, raw: string, now: Date): ParsedAlert | null {
  const title = presence(firstValue(item, TITLE_PATHS))
  const startsAtRaw = presence(dig(item, ['startsAt']))
  if (title === undefined || startsAtRaw === undefined) return null
  const titleText = rubyToS(title)
  const endsAt = parseTime(presence(dig(item, ['endsAt'])))
  const endedAt = endsAt === undefined || endsAt === GO_ZERO_TIME ? null : endsAt
  const hasEnded = endedAt !== null && Date.parse(endedAt) <= now.getTime()
  return {
    title: text(titleText, TITLE_MAX),
    description: text(dig(item, ['annotations', 'description']), DESCRIPTION_MAX),
    service: null,
    monitoringTool: PROMETHEUS_TOOL,
    hosts: [],
    severity: prometheusSeverity(dig(item, ['labels', 'severity'])),
    startedAt: parseTime(startsAtRaw) ?? now.toISOString(),
    endedAt,
    resolved: dig(item, ['status']) === 'resolved' || hasEnded,
    fingerprint: fingerprintOf([rubyToS(startsAtRaw), titleText, fullQueryOf(dig(item, ['generatorURL']))].join('/')),
    environmentName: environmentNameOf(
      firstValue(item, [
        ['labels', 'svc_environment_name'],
        ['labels', 'gitlab_environment_name'],
      ]),
    ),
    runbook: plain(dig(item, ['annotations', 'runbook'])),
    payload: raw,
  }
}

const PROMETHEUS_KEYS = [
  'version',
  'groupKey',
  'status',
  'receiver',
  'groupLabels',
  'commonLabels',
  'commonAnnotations',
  'externalURL',
  'alerts',
]

/** A monitoring-system payload: all its top-level keys and version "4", whatever URL it came to (GL NotifyService#processable?). */
export function isPrometheusPayload(payload: Record<string, unknown>): boolean {
  return PROMETHEUS_KEYS.every((key) => Object.prototype.hasOwnProperty.call(payload, key)) && payload.version === '4'
}
