import { randomBytes } from 'node:crypto'
import { tierIncludes } from '../../../core/access.js'
import type { Context } from '../../../core/context.js'
import { BadRequest, Forbidden, Invalid, MissingParam, NotFound, ParamError, Unprocessable } from '../../../core/errors.js'
import type { AlertIntegrationRow } from '../../../db/schema.js'
import type { OffsetPage } from '../../../db/pagination.js'
import { authorizeAdminOperations, canSendTestAlert } from './policy.js'
import {
  MAPPING_FIELD_NAMES,
  MAPPING_TYPES,
  type IntegrationType,
  type MappingFieldName,
  type MappingType,
  type PayloadAttributeMapping,
} from './schemas.js'
import {
  deleteIntegrationRow,
  findIntegration,
  insertIntegration,
  lockProjectIntegrations,
  selectIntegrations,
  selectIntegrationsPage,
  updateIntegrationRow,
} from './store.js'
import { PROMETHEUS_IDENTIFIER } from './urls.js'
import { type LoadedProject } from '../../access/index.js'

/** What a create or an update may set; absent fields are left as they are (or take their defaults). */
export interface IntegrationInput {
  name?: string
  active?: boolean
  /** A JSON object, or a string holding one. */
  payloadExample?: unknown
  /** An array of mappings, or a string holding one. */
  payloadAttributeMappings?: unknown
  createIncident?: boolean
  autoCloseIncident?: boolean
  apiUrl?: string | null
}

export const MESSAGES = {
  multiple: 'Multiple integrations of a single type are not supported for this project',
  multiplePrometheus: 'Multiple Prometheus integrations are not supported',
  prometheusRemoval: 'Legacy Prometheus integrations cannot currently be removed',
  trackerWithOthers: 'Opsgenie can be active only when no other alert integration is active',
  othersWithTracker: 'No other alert integration can be active while the Opsgenie integration is active',
} as const

const NAME_MAX = 255
/** GL Gitlab::Utils::DeepSize defaults, as GL validates `payloadExample`. */
const PAYLOAD_EXAMPLE_MAX_BYTES = 1024 * 1024
const PAYLOAD_EXAMPLE_MAX_DEPTH = 100

/** The names the non-HTTP integrations carry (GL PrometheusIntegrationType name; the tracker's default). */
const DEFAULT_NAMES: Record<Exclude<IntegrationType, 'http'>, string> = { prometheus: 'Prometheus', opsgenie: 'Opsgenie' }

/** 32 lowercase hex characters from 16 random bytes (GL HttpIntegration.generate_token, `SecureRandom.hex`). */
export function generateToken(): string {
  return randomBytes(16).toString('hex')
}

/** 16 hex characters (GL HttpIntegration `SecureRandom.hex(8)`). */
function generateEndpointIdentifier(): string {
  return randomBytes(8).toString('hex')
}

/** Custom mappings and the payload example they are built from: Premium and Ultimate (GL `custom_mapping_available?`). */
export function customMappingAvailable(ctx: Context): boolean {
  return tierIncludes(ctx.config.tier, 'premium')
}

// Reading the JSON parameters.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseJsonParam(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value) as unknown
  } catch {
    throw new ParamError(`${name} is invalid`)
  }
}

/** Nesting depth as GL DeepSize counts it: each object or array is one level. */
function depthOf(value: unknown, limit: number, depth = 0): number {
  if (typeof value !== 'object' || value === null) return depth
  const level = depth + 1
  if (level > limit) return level
  let deepest = level
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, limit, level))
    if (deepest > limit) break
  }
  return deepest
}

/** The payload example: a JSON object within GL's size and depth limits. */
function readPayloadExample(value: unknown): Record<string, unknown> {
  const parsed = parseJsonParam(value, 'payload_example')
  if (!isPlainObject(parsed)) throw new ParamError('payload_example is invalid')
  // Depth first: measuring the size of a very deep value would itself overflow the stack.
  const tooBig =
    depthOf(parsed, PAYLOAD_EXAMPLE_MAX_DEPTH) > PAYLOAD_EXAMPLE_MAX_DEPTH ||
    Buffer.byteLength(JSON.stringify(parsed)) > PAYLOAD_EXAMPLE_MAX_BYTES
  // GL EE HttpIntegrationBase#validate_payload_example!: 'payloadExample JSON is too big'.
  if (tooBig) throw new BadRequest('payload_example JSON is too big')
  return parsed
}

function mappingOf(item: unknown): PayloadAttributeMapping | null {
  if (!isPlainObject(item)) return null
  const fieldName = typeof item.field_name === 'string' ? item.field_name.toLowerCase() : null
  const type = typeof item.type === 'string' ? item.type.toLowerCase() : null
  if (!fieldName || !(MAPPING_FIELD_NAMES as readonly string[]).includes(fieldName)) return null
  if (!type || !(MAPPING_TYPES as readonly string[]).includes(type)) return null
  const path = item.path
  if (!Array.isArray(path) || path.length === 0) return null
  if (
    !path.every((segment) => (typeof segment === 'string' && segment !== '') || (Number.isInteger(segment) && (segment as number) >= 0))
  ) {
    return null
  }
  if (item.label !== undefined && item.label !== null && typeof item.label !== 'string') return null
  if (Object.keys(item).some((key) => !['field_name', 'path', 'type', 'label'].includes(key))) return null
  const mapping: PayloadAttributeMapping = {
    field_name: fieldName as MappingFieldName,
    path: path as (string | number)[],
    type: type as MappingType,
  }
  if (typeof item.label === 'string') mapping.label = item.label
  return mapping
}

/**
 * The custom mappings, one per alert field: GL keeps them in a hash by field name, so a field named twice keeps its
 * last mapping. A mapping that is not of the agreed shape fails GL's JSON schema validation.
 */
function readMappings(value: unknown): PayloadAttributeMapping[] {
  const parsed = parseJsonParam(value, 'payload_attribute_mappings')
  if (!Array.isArray(parsed)) throw new ParamError('payload_attribute_mappings is invalid')
  const byField = new Map<string, PayloadAttributeMapping>()
  for (const item of parsed) {
    const mapping = mappingOf(item)
    if (!mapping) throw new Invalid({ payload_attribute_mappings: ['must be a valid json schema'] })
    byField.delete(mapping.field_name)
    byField.set(mapping.field_name, mapping)
  }
  return [...byField.values()]
}

// Model validations (GL AlertManagement::HttpIntegration, Integrations::Prometheus `api_url`).

function nameProblems(name: string): string[] {
  if (name.trim() === '') return ["can't be blank"]
  if ([...name].length > NAME_MAX) return [`is too long (maximum is ${NAME_MAX} characters)`]
  return []
}

/** GL's public URL validation (AddressableUrlValidator) messages. */
function urlProblems(url: string): string[] {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return ['is blocked: URI is invalid']
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return ['is blocked: Only allowed schemes are http, https']
  return []
}

/** A blank base URL clears it. */
function blankToNull(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined
  return value === null || value.trim() === '' ? null : value.trim()
}

interface Checked {
  name?: string
  apiUrl?: string | null
  payloadExample?: Record<string, unknown>
  mappings?: PayloadAttributeMapping[]
}

/** Reads and validates what the caller sent for an integration of `type`; nothing is written on failure. */
function checkInput(ctx: Context, type: IntegrationType, input: IntegrationInput, creating: boolean): Checked {
  const checked: Checked = {}
  // Parameter formats first (GraphQL coerces arguments before resolving), whatever the tier.
  const payloadExample = input.payloadExample === undefined ? undefined : readPayloadExample(input.payloadExample)
  const mappings = input.payloadAttributeMappings === undefined ? undefined : readMappings(input.payloadAttributeMappings)
  if (type === 'http' && customMappingAvailable(ctx)) {
    // On Free GL drops both without a word (EE HttpIntegrations::BaseService#permitted_params_keys).
    checked.payloadExample = payloadExample
    checked.mappings = mappings
  }
  const errors: Record<string, string[]> = {}
  if (type === 'prometheus') {
    if (creating) checked.name = DEFAULT_NAMES.prometheus
  } else if (input.name !== undefined) {
    const problems = nameProblems(input.name)
    if (problems.length > 0) errors.name = problems
    else checked.name = input.name
  } else if (creating) {
    if (type === 'http') throw new MissingParam('name')
    checked.name = DEFAULT_NAMES[type]
  }
  if (type !== 'http') {
    const apiUrl = blankToNull(input.apiUrl)
    if (apiUrl !== undefined && apiUrl !== null) {
      const problems = urlProblems(apiUrl)
      if (problems.length > 0) errors.api_url = problems
    }
    // The tracker forwards alerts to its URL, so it needs one.
    if (type === 'opsgenie' && (apiUrl === null || (apiUrl === undefined && creating))) errors.api_url = ["can't be blank"]
    checked.apiUrl = apiUrl
  }
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
  return checked
}

/**
 * The external-tracker rule (GL's Opsgenie setting): it may be active only while no other integration is, and no
 * other may become active while it is.
 */
function checkTrackerRule(others: AlertIntegrationRow[], type: IntegrationType, active: boolean) {
  if (!active) return
  const activeOthers = others.filter((other) => other.active === 1)
  if (type === 'opsgenie' && activeOthers.length > 0) throw new Unprocessable(MESSAGES.trackerWithOthers)
  if (type !== 'opsgenie' && activeOthers.some((other) => other.type === 'opsgenie')) throw new Unprocessable(MESSAGES.othersWithTracker)
}

export async function listIntegrations(
  ctx: Context,
  loaded: LoadedProject,
  window: { page: number; perPage: number },
): Promise<OffsetPage<AlertIntegrationRow>> {
  authorizeAdminOperations(loaded.access)
  return selectIntegrationsPage(ctx.db, loaded.project.id, window.page, window.perPage)
}

/** Every integration of the project, for its settings page. */
export async function allIntegrations(ctx: Context, loaded: LoadedProject): Promise<AlertIntegrationRow[]> {
  authorizeAdminOperations(loaded.access)
  return selectIntegrations(ctx.db, loaded.project.id)
}

/** The integrations a Developer and up may send a test alert through: all but the external tracker, which receives none. */
export async function testableIntegrations(ctx: Context, loaded: LoadedProject): Promise<AlertIntegrationRow[]> {
  if (!canSendTestAlert(loaded.access)) throw new Forbidden()
  return (await selectIntegrations(ctx.db, loaded.project.id)).filter((integration) => integration.type !== 'opsgenie')
}

async function loadIntegration(ctx: Context, loaded: LoadedProject, id: number): Promise<AlertIntegrationRow> {
  const integration = await findIntegration(ctx.db, loaded.project.id, id)
  if (!integration) throw new NotFound('Integration')
  return integration
}

export async function showIntegration(ctx: Context, loaded: LoadedProject, id: number): Promise<AlertIntegrationRow> {
  authorizeAdminOperations(loaded.access)
  return loadIntegration(ctx, loaded, id)
}

/**
 * GL AlertManagement::HttpIntegrations::CreateService and the Prometheus integration's create: validation first,
 * then the per-project limits — one Prometheus integration, one tracker, and on Free one HTTP integration.
 */
export async function createIntegration(
  ctx: Context,
  loaded: LoadedProject,
  type: IntegrationType,
  input: IntegrationInput,
): Promise<AlertIntegrationRow> {
  authorizeAdminOperations(loaded.access)
  if (type === 'opsgenie' && !tierIncludes(ctx.config.tier, 'premium')) throw new ParamError('type does not have a valid value')
  const checked = checkInput(ctx, type, input, true)
  const active = input.active ?? false
  const at = ctx.now().toISOString()
  return ctx.db.transaction().execute(async (trx) => {
    await lockProjectIntegrations(trx, loaded.project.id)
    const existing = await selectIntegrations(trx, loaded.project.id)
    const sameType = existing.filter((other) => other.type === type)
    if (type === 'prometheus' && sameType.length > 0) throw new Unprocessable(MESSAGES.multiplePrometheus)
    if (sameType.length > 0 && (type === 'opsgenie' || !tierIncludes(ctx.config.tier, 'premium')))
      throw new Unprocessable(MESSAGES.multiple)
    checkTrackerRule(existing, type, active)
    return insertIntegration(trx, {
      project_id: loaded.project.id,
      name: checked.name!,
      type,
      active: active ? 1 : 0,
      endpoint_identifier: type === 'prometheus' ? PROMETHEUS_IDENTIFIER : generateEndpointIdentifier(),
      token: generateToken(),
      api_url: type === 'http' ? null : (checked.apiUrl ?? null),
      payload_example: JSON.stringify(checked.payloadExample ?? {}),
      payload_attribute_mappings: JSON.stringify(checked.mappings ?? []),
      create_incident: input.createIncident ? 1 : 0,
      auto_close_incident: input.autoCloseIncident === false ? 0 : 1,
      created_at: at,
      updated_at: at,
    })
  })
}

/** GL AlertManagement::HttpIntegrations::UpdateService (and the Prometheus integration's update: active, api_url). */
export async function updateIntegration(
  ctx: Context,
  loaded: LoadedProject,
  id: number,
  input: IntegrationInput,
): Promise<AlertIntegrationRow> {
  authorizeAdminOperations(loaded.access)
  const integration = await loadIntegration(ctx, loaded, id)
  const type = integration.type as IntegrationType
  const checked = checkInput(ctx, type, input, false)
  return ctx.db.transaction().execute(async (trx) => {
    await lockProjectIntegrations(trx, loaded.project.id)
    const others = (await selectIntegrations(trx, loaded.project.id)).filter((other) => other.id !== integration.id)
    if (input.active === true && integration.active === 0) checkTrackerRule(others, type, true)
    return updateIntegrationRow(trx, integration.id, {
      ...(checked.name !== undefined ? { name: checked.name } : {}),
      ...(input.active !== undefined ? { active: input.active ? 1 : 0 } : {}),
      ...(checked.apiUrl !== undefined ? { api_url: checked.apiUrl } : {}),
      ...(checked.payloadExample !== undefined ? { payload_example: JSON.stringify(checked.payloadExample) } : {}),
      ...(checked.mappings !== undefined ? { payload_attribute_mappings: JSON.stringify(checked.mappings) } : {}),
      ...(input.createIncident !== undefined ? { create_incident: input.createIncident ? 1 : 0 } : {}),
      ...(input.autoCloseIncident !== undefined ? { auto_close_incident: input.autoCloseIncident ? 1 : 0 } : {}),
      updated_at: ctx.now().toISOString(),
    })
  })
}

/** A new key; the old one stops working at once (GL UpdateService with `regenerate_token`). */
export async function resetIntegrationToken(ctx: Context, loaded: LoadedProject, id: number): Promise<AlertIntegrationRow> {
  authorizeAdminOperations(loaded.access)
  const integration = await loadIntegration(ctx, loaded, id)
  return updateIntegrationRow(ctx.db, integration.id, { token: generateToken(), updated_at: ctx.now().toISOString() })
}

/** GL AlertManagement::HttpIntegrations::DestroyService: the Prometheus integration (`legacy-prometheus`) stays. */
export async function deleteIntegration(ctx: Context, loaded: LoadedProject, id: number): Promise<void> {
  authorizeAdminOperations(loaded.access)
  const integration = await loadIntegration(ctx, loaded, id)
  if (integration.endpoint_identifier === PROMETHEUS_IDENTIFIER) throw new Unprocessable(MESSAGES.prometheusRemoval)
  await deleteIntegrationRow(ctx.db, integration.id)
}
