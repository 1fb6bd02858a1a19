import { createHash, randomUUID } from 'node:crypto'
import type { Context } from '../../core/context.js'
import {
  OUTBOUND_RESPONSE_READ_LIMIT_BYTES,
  OutboundFailed,
  OutboundRefused,
  outboundRulesFor,
  sendOutbound,
  type OutboundResponse,
} from '../../core/outbound-http.js'
import type { Db } from '../../db/index.js'
import type { NewWebHookLogRow, WebHookRow } from '../../db/schema.js'
import { SVC_VERSION } from '../../version.js'
import { failureStateAfter } from './auto-disabling.js'
import { findHookRowById, insertHookLogs, updateHookFailureState } from './store.js'
import { interpolatedUrl, InterpolationError, maskedUrl } from './urls.js'

// One request of a hook, as GL WebHookService#execute sends and logs it (WebHooks::LogExecutionService).

/** GL `gitlab.webhook_timeout` (gitlab.yml's default). */
export const WEBHOOK_TIMEOUT_MS = 10_000
/** GL WebHookService: what a log keeps of a response, and of the request body. */
const RESPONSE_BODY_SIZE_LIMIT = 8 * 1024
const RESPONSE_HEADERS_COUNT_LIMIT = 50
const RESPONSE_HEADERS_SIZE_LIMIT = 1024
const REQUEST_BODY_SIZE_LIMIT = 25 * 1024 * 1024
/** GL WebHookService::InternalErrorResponse: the status logged when no response came. */
export const INTERNAL_ERROR = 'internal error'
const REDACTED = '[REDACTED]'
// URI::MailTo::EMAIL_REGEXP: the log replaces every value that is an e-mail address.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/
const TEMPLATE_REFERENCE = /\{\{(.+?)\}\}/g

/** What to send: the body, GitLab's hook name (`push_hooks`, `system_hooks`…) and event header, and its keys. */
export interface HookRequest {
  data: Record<string, unknown>
  hookName: string
  event: string
  /** The same on every attempt of one delivery. */
  idempotencyKey: string
  eventUuid: string
}

/** What came of a request: GitLab's ServiceResponse of WebHookService#execute. */
/** What a request sent at once (a test, a resend) got back: its status, null when none came, and the body or error. */
export interface HookOutcome {
  status: number | null
  message: string
}

export interface SentRequest {
  /** A 2xx or 3xx came back (GL response category `ok`). */
  succeeded: boolean
  /** The status that came back; null when none did. */
  status: number | null
  /** The whole response body, or the error when no response came. */
  message: string
  log: Omit<NewWebHookLogRow, 'web_hook_id' | 'created_at'>
}

class TemplateError extends Error {}

function parseJson(text: string): Record<string, string> {
  return JSON.parse(text) as Record<string, string>
}

/** GL `render_custom_template` (with `custom_webhook_template_serialization`): `{{a.b}}` becomes the value's JSON. */
function renderTemplate(template: string, data: Record<string, unknown>): Record<string, unknown> {
  const rendered = template.replace(TEMPLATE_REFERENCE, (_match, path: string) => {
    let value: unknown = data
    for (const key of path.split('.')) {
      if (value === null || value === undefined) break
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw new TemplateError('You may be trying to access an array value, which is not supported.')
      }
      value = (value as Record<string, unknown>)[key]
    }
    const json = JSON.stringify(value ?? null)
    return typeof value === 'string' ? json.slice(1, -1) : json
  })
  try {
    return JSON.parse(rendered) as Record<string, unknown>
  } catch (error) {
    throw new TemplateError((error as Error).message)
  }
}

/** ActiveSupport's `truncate_bytes` with its `…`: at most `limit` bytes, cut at a character. */
export function truncateBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= limit) return text
  let end = limit - 3
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1
  return `${bytes.subarray(0, end).toString('utf8')}…`
}

/** Net::HTTPHeader#each_capitalized: `content-type` → `Content-Type`. */
function capitalized(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-')
}

function redactEmails(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactEmails)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactEmails(inner)]))
  }
  return value !== null && value !== undefined && EMAIL.test(String(value)) ? REDACTED : value
}

/** The response headers a log keeps: 50 at most, each value cut at 1 KB, URL variable values shown as `{name}`. */
function loggedResponseHeaders(headers: Record<string, string>, urlVariables: Record<string, string>): Record<string, string> {
  const masks = Object.entries(urlVariables).filter(([, value]) => value !== '')
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers).slice(0, RESPONSE_HEADERS_COUNT_LIMIT)) {
    let text = truncateBytes(value, RESPONSE_HEADERS_SIZE_LIMIT)
    for (const [key, secret] of masks) text = text.split(secret).join(`{${key}}`)
    out[capitalized(name)] = text
  }
  return out
}

/**
 * Sends one request of `hook` and answers what GitLab logs of it; nothing is written. The URL is checked again as it
 * is sent, against the instance settings of now.
 */
export async function sendHookRequest(ctx: Context, hook: WebHookRow, request: HookRequest): Promise<SentRequest> {
  const customHeaders = parseJson(hook.custom_headers)
  const urlVariables = parseJson(hook.url_variables)
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${SVC_VERSION}`,
    'Idempotency-Key': request.idempotencyKey,
    'X-Gitlab-Event': request.event,
    'X-Gitlab-Webhook-UUID': randomUUID(),
    'X-Gitlab-Instance': ctx.config.externalUrl,
  }
  if (hook.token) headers['X-Gitlab-Token'] = hook.token.replace(/\r?\n/g, '')
  headers['X-Gitlab-Event-UUID'] = request.eventUuid
  const builtIn = new Set(Object.keys(headers).map((name) => name.toLowerCase()))
  const custom = Object.entries(customHeaders).filter(([name]) => !builtIn.has(name.toLowerCase()))
  const sentHeaders = { ...Object.fromEntries(custom), ...headers }
  const loggedHeaders: Record<string, string> = { ...Object.fromEntries(custom.map(([name]) => [name, REDACTED])), ...headers }
  if (hook.token) loggedHeaders['X-Gitlab-Token'] = REDACTED

  let url: string
  try {
    url = interpolatedUrl(hook.url, urlVariables)
  } catch (error) {
    // GL WebHookService#parsed_url: a template that cannot be filled is sent as it stands.
    if (!(error instanceof InterpolationError)) throw error
    url = hook.url
  }
  const started = performance.now()
  let requestData: Record<string, unknown> = request.data
  let response: OutboundResponse | null = null
  let failure: string | null = null
  try {
    if (hook.custom_webhook_template) {
      try {
        requestData = renderTemplate(hook.custom_webhook_template, request.data)
      } catch (error) {
        requestData = {}
        throw new TemplateError(`Error while parsing rendered custom webhook template: ${(error as Error).message}`)
      }
    }
    const body = JSON.stringify(requestData)
    if (Buffer.byteLength(body) > REQUEST_BODY_SIZE_LIMIT)
      throw new TemplateError(`JSON size limit exceeded (${REQUEST_BODY_SIZE_LIMIT} bytes)`)
    // A user and password in the URL are sent as basic authentication.
    response = await sendOutbound({
      url,
      method: 'POST',
      headers: sentHeaders,
      body,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      ...outboundRulesFor(ctx.settings, hook.type === 'SystemHook' ? 'system' : 'web'),
      verifyTls: hook.enable_ssl_verification === 1,
      maxResponseBytes: OUTBOUND_RESPONSE_READ_LIMIT_BYTES,
    })
  } catch (error) {
    if (!(error instanceof OutboundRefused || error instanceof OutboundFailed || error instanceof TemplateError)) throw error
    failure = error.message
  }
  const log = {
    trigger: request.hookName,
    url: maskedUrl(hook.url),
    url_hash: createHash('sha256').update(url).digest('hex'),
    request_headers: JSON.stringify(loggedHeaders),
    request_data: JSON.stringify(redactEmails(requestData)),
    response_headers: JSON.stringify(response ? loggedResponseHeaders(response.headers, urlVariables) : {}),
    response_body: response ? truncateBytes(response.body, RESPONSE_BODY_SIZE_LIMIT) : '',
    response_status: response ? String(response.status) : INTERNAL_ERROR,
    execution_duration: (performance.now() - started) / 1000,
    internal_error_message: failure,
  }
  if (!response) return { succeeded: false, status: null, message: failure ?? '', log }
  return { succeeded: response.status >= 200 && response.status < 400, status: response.status, message: response.body, log }
}

/**
 * Writes sent requests' log entries (one statement) and what their outcomes, in order, make of each hook's failure state
 * (GL WebHooks::LogExecutionService), in `trx`; answers the log entries' ids.
 */
export async function recordHookRequests(ctx: Context, trx: Db, requests: { hook: WebHookRow; sent: SentRequest }[]): Promise<number[]> {
  if (requests.length === 0) return []
  const now = ctx.now()
  const at = now.toISOString()
  const ids = await insertHookLogs(
    trx,
    requests.map(({ hook, sent }) => ({ ...sent.log, web_hook_id: hook.id, created_at: at })),
  )
  const outcomes = new Map<number, { hook: WebHookRow; succeeded: boolean[] }>()
  for (const { hook, sent } of requests) {
    const entry = outcomes.get(hook.id) ?? { hook, succeeded: [] }
    entry.succeeded.push(sent.succeeded)
    outcomes.set(hook.id, entry)
  }
  for (const { hook, succeeded } of outcomes.values()) {
    let current: WebHookRow | undefined = hook
    for (let attempt = 0; current && attempt < 10; attempt++) {
      let state: Pick<WebHookRow, 'type' | 'recent_failures' | 'disabled_until'> = current
      for (const outcome of succeeded) state = { ...state, ...failureStateAfter(state, outcome, now) }
      const unchanged = state.recent_failures === current.recent_failures && state.disabled_until === current.disabled_until
      if (unchanged || (await updateHookFailureState(trx, current.id, current, state))) break
      current = await findHookRowById(trx, hook.id)
    }
  }
  return ids
}

/** The same for one request. */
export async function recordHookRequest(ctx: Context, trx: Db, hook: WebHookRow, sent: SentRequest): Promise<number> {
  const [id] = await recordHookRequests(ctx, trx, [{ hook, sent }])
  return id!
}

/** A new delivery's keys: its Idempotency-Key and X-Gitlab-Event-UUID. */
export function newRequestKeys(): { idempotencyKey: string; eventUuid: string } {
  return { idempotencyKey: randomUUID(), eventUuid: randomUUID() }
}

/** Sends one request and records it at once, as GitLab does for requests made on demand (tests and resends). */
export async function executeAndRecord(ctx: Context, hook: WebHookRow, request: HookRequest): Promise<SentRequest> {
  const sent = await sendHookRequest(ctx, hook, request)
  await ctx.db.transaction().execute((trx) => recordHookRequest(ctx, trx, hook, sent))
  return sent
}
