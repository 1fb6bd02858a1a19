import { promisify } from 'node:util'
import zlib from 'node:zlib'

/**
 * Bodies are read up to this size as received (compressed or not): the tracker's own limit for one event
 * (Relay `max_event_size`, 1 MiB). The SDKs compress anything large, so a real event fits.
 */
export const MAX_RECEIVED_BYTES = 1024 * 1024
/** A compressed body may grow to this size and no further (a zip bomb stops here, not in memory). */
export const MAX_DECOMPRESSED_BYTES = 20 * 1024 * 1024

const gunzip = promisify(zlib.gunzip)
const inflate = promisify(zlib.inflate)
const inflateRaw = promisify(zlib.inflateRaw)

export type BodyFailure = 'unparsable' | 'too-large'

function failureOf(error: unknown): BodyFailure {
  return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : 'unparsable'
}

/**
 * The body as sent, decompressed for `Content-Encoding: gzip` and `deflate` (GitLab only gunzips; SDKs of other
 * families deflate). `deflate` is zlib-wrapped per HTTP, but raw deflate streams are read too.
 */
export async function decompress(body: Buffer, encoding: string | undefined): Promise<Buffer | BodyFailure> {
  const coding = (encoding ?? '').trim().toLowerCase()
  if (coding === '' || coding === 'identity') return body
  const options = { maxOutputLength: MAX_DECOMPRESSED_BYTES }
  try {
    if (coding === 'gzip' || coding === 'x-gzip') return await gunzip(body, options)
    if (coding === 'deflate') {
      try {
        return await inflate(body, options)
      } catch (error) {
        if (failureOf(error) === 'too-large') throw error
        return await inflateRaw(body, options)
      }
    }
  } catch (error) {
    return failureOf(error)
  }
  // Any other coding cannot be read.
  return 'unparsable'
}

export interface EnvelopeItem {
  type: string
  payload: Buffer
}

export interface Envelope {
  header: Record<string, unknown>
  items: EnvelopeItem[]
}

const NEWLINE = 0x0a

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function parseObjectLine(bytes: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'))
    return isObject(value) ? value : null
  } catch {
    return null
  }
}

/**
 * A tracker envelope: a header line (a JSON object, `{}` at least), then items, each an item header line (a JSON
 * object with a `type`) and its payload: exactly `length` bytes when the header gives a length (the payload may hold
 * newlines; a newline or the end follows it), else everything up to the next newline. Null when malformed.
 */
export function parseEnvelope(body: Buffer): Envelope | null {
  let at = 0
  const line = (): Buffer | null => {
    if (at >= body.length) return null
    let end = body.indexOf(NEWLINE, at)
    if (end < 0) end = body.length
    const bytes = body.subarray(at, end)
    at = end + 1
    return bytes
  }
  const headerLine = line()
  if (headerLine === null) return null
  const header = parseObjectLine(headerLine)
  if (!header) return null
  const items: EnvelopeItem[] = []
  for (;;) {
    const itemLine = line()
    if (itemLine === null) break
    // Blank lines (a trailing newline, say) carry no item.
    if (itemLine.toString('utf8').trim() === '') continue
    const itemHeader = parseObjectLine(itemLine)
    if (!itemHeader || typeof itemHeader.type !== 'string') return null
    const length = itemHeader.length
    let payload: Buffer
    if (length === undefined || length === null) {
      payload = line() ?? Buffer.alloc(0)
    } else {
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return null
      if (at + length > body.length) return null
      payload = body.subarray(at, at + length)
      at += length
      if (at < body.length) {
        if (body[at] !== NEWLINE) return null
        at += 1
      }
    }
    items.push({ type: itemHeader.type, payload })
  }
  return { header, items }
}

/** The public key of the DSN an envelope header names (`https://<key>@host/…`), if any. */
export function keyOfDsn(header: Record<string, unknown>): string | null {
  if (typeof header.dsn !== 'string') return null
  try {
    const user = new URL(header.dsn).username
    return user === '' ? null : decodeURIComponent(user)
  } catch {
    return null
  }
}

/** The key of `X-Sentry-Auth: Sentry sentry_key=<key>, …` (GL ErrorTracking::Collector::SentryAuthParser). */
export function keyOfAuthHeader(header: string | string[] | undefined): string | null {
  const text = Array.isArray(header) ? header[0] : header
  if (!text) return null
  return /sentry_key=(\w+)/.exec(text)?.[1] ?? null
}

// ---- Events

/** An event as grouped and stored (GL ErrorTracking::CollectErrorService). */
export interface ParsedEvent {
  name: string
  description: string
  actor: string
  platform: string
  environment: string | null
  level: string | null
  occurredAt: string
  /** The event as received (JSON text). */
  payload: string
}

export type EventOutcome =
  { ok: true; event: ParsedEvent } | { ok: false; failure: 'unparsable' | 'unsupported' } | { ok: false; invalid: string }

const isString = (value: unknown): value is string => typeof value === 'string'
const optional = (value: unknown, check: (v: unknown) => boolean) => value === undefined || value === null || check(value)
const optionalArray = (value: unknown) => optional(value, Array.isArray)

/** A frame as GL's payload schema accepts it (R app/validators/json_schemas/error_tracking_event_payload.json). */
function frameValid(frame: unknown): boolean {
  if (!isObject(frame)) return false
  return (
    optional(frame.abs_path, isString) &&
    optional(frame.function, isString) &&
    optional(frame.filename, isString) &&
    optional(frame.lineno, (v) => typeof v === 'number') &&
    optional(frame.in_app, (v) => typeof v === 'boolean') &&
    optionalArray(frame.pre_context) &&
    optionalArray(frame.post_context) &&
    optional(frame.context_line, isString)
  )
}

function stacktraceValid(stacktrace: unknown): boolean {
  if (stacktrace === undefined || stacktrace === null) return true
  if (!isObject(stacktrace)) return false
  return optional(stacktrace.frames, (frames) => Array.isArray(frames) && frames.every(frameValid))
}

function exceptionItemValid(item: unknown): boolean {
  return isObject(item) && optional(item.type, isString) && optional(item.value, isString) && stacktraceValid(item.stacktrace)
}

/** The exception entries, from either form (`[…]` or `{values: […]}`); null when the form is wrong. */
function exceptionsOf(exception: unknown): Record<string, unknown>[] | null {
  const values = Array.isArray(exception) ? exception : isObject(exception) ? exception.values : undefined
  if (!Array.isArray(values) || !values.every(exceptionItemValid)) return null
  return values as Record<string, unknown>[]
}

/** The message of a message event: `message` (a string or `{formatted, message}`), else `logentry`. */
function messageOf(event: Record<string, unknown>): string | null {
  for (const source of [event.message, event.logentry]) {
    if (isString(source) && source.trim() !== '') return source
    if (isObject(source)) {
      for (const text of [source.formatted, source.message]) if (isString(text) && text.trim() !== '') return text
    }
  }
  return null
}

const present = (value: unknown): value is string => isString(value) && value.trim() !== ''

/** `"<function>(<module>)"` of the last frame (GL CollectErrorService#actor); null without frames. */
function frameActor(stacktrace: unknown): string | null {
  if (!isObject(stacktrace) || !Array.isArray(stacktrace.frames) || stacktrace.frames.length === 0) return null
  const last = stacktrace.frames[stacktrace.frames.length - 1] as Record<string, unknown>
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value))
  return `${text(last.function)}(${text(last.module)})`
}

const EPOCH = /^\d+(\.\d+)?$/

/** `timestamp`: ISO text, or epoch seconds as a number or numeric text; now when absent; null when unreadable. */
export function timestampOf(value: unknown, now: Date): string | null {
  let date: Date
  if (value === undefined || value === null) date = now
  else if (typeof value === 'number') date = new Date(value * 1000)
  else if (isString(value)) date = EPOCH.test(value.trim()) ? new Date(Number(value.trim()) * 1000) : new Date(value)
  else return null
  const time = date.getTime()
  // Years 0 to 9999 only: both databases store them.
  if (!Number.isFinite(time) || time < -62167219200000 || time > 253402300799999) return null
  return date.toISOString()
}

/** Characters as Ruby counts them (code points). */
function characters(text: string): number {
  return text.length <= 255 ? text.length : [...text].length
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text
  return [...text].slice(0, max).join('')
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * Text as it can be stored and read back unchanged: PostgreSQL text cannot hold NUL, and GitLab accepts events
 * holding them (spec: "body contains nullbytes"), so NULs are dropped; a lone surrogate (`"\ud800"` in the JSON) is
 * no character, and both databases would store it as U+FFFD, so it becomes U+FFFD here already and the event is
 * grouped under the name that is stored.
 */
const storable = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '') : text).replace(LONE_SURROGATE, '\ufffd')

/**
 * One event: JSON object, checked against GitLab's payload schema, grouped as GitLab groups it (GL
 * ErrorTracking::CollectErrorService, ErrorTracking::Error validations: name, description and actor present, at
 * most 255, 1024 and 255 characters, platform at most 255). A model validation failure is GitLab's 400 with the
 * validation sentence; svc rejects too, rather than truncating, so that what is stored is what the SDK sent.
 *
 * Message events (a message, and no exception or one without a type) are accepted, unlike GitLab (spec README:
 * decided difference), and grouped by their message as exceptions are by their type: name = the message (its first
 * 255 characters), description = the message (first 1024), actor = the transaction, else the last frame of the
 * stack trace sent with it, else blank; platform as for exceptions. They are truncated, not refused: their text is
 * free-form, and their group is the message, whatever its length.
 */
export function parseEvent(text: string, now: Date): EventOutcome {
  let event: unknown
  try {
    event = JSON.parse(text)
  } catch {
    return { ok: false, failure: 'unparsable' }
  }
  if (!isObject(event)) return { ok: false, failure: 'unsupported' }
  if (!optional(event.environment, isString) || !optional(event.platform, isString) || !optional(event.sdk, isObject)) {
    return { ok: false, failure: 'unsupported' }
  }
  let exceptions: Record<string, unknown>[] = []
  if (event.exception !== undefined && event.exception !== null) {
    const found = exceptionsOf(event.exception)
    if (!found) return { ok: false, failure: 'unsupported' }
    exceptions = found
  }
  // The exception with a stack trace, else the first (GL CollectErrorService#exception).
  const exception = exceptions.find((item) => isObject(item.stacktrace)) ?? exceptions[0]
  // SDKs attach a synthetic exception without a type to a message when they attach stack traces (@sentry/node does):
  // such an event is a message event.
  const typed = exception !== undefined && present(exception.type)
  const message = typed ? null : messageOf(event)
  if (!exception && message === null) return { ok: false, failure: 'unsupported' }

  const occurredAt = timestampOf(event.timestamp, now)
  const platform = isString(event.platform) ? event.platform : ''
  const transaction = present(event.transaction) ? event.transaction : null
  const errors: string[] = []
  let name: string
  let description: string
  let actor: string
  if (message !== null) {
    name = truncate(message, 255)
    description = truncate(message, 1024)
    const threads = isObject(event.threads) && Array.isArray(event.threads.values) ? (event.threads.values as unknown[]) : []
    const threadTrace = threads.map((thread) => (isObject(thread) ? thread.stacktrace : null)).find((trace) => frameActor(trace) !== null)
    const trace = exception?.stacktrace ?? event.stacktrace ?? threadTrace
    actor = truncate(transaction ?? frameActor(trace) ?? '', 255)
  } else {
    name = isString(exception.type) ? exception.type : ''
    description = isString(exception.value) ? exception.value : ''
    actor = transaction ?? frameActor(exception.stacktrace) ?? ''
    if (name.trim() === '') errors.push("Name can't be blank")
    else if (characters(name) > 255) errors.push('Name is too long (maximum is 255 characters)')
    if (description.trim() === '') errors.push("Description can't be blank")
    else if (characters(description) > 1024) errors.push('Description is too long (maximum is 1024 characters)')
    if (actor.trim() === '') errors.push("Actor can't be blank")
    else if (characters(actor) > 255) errors.push('Actor is too long (maximum is 255 characters)')
  }
  if (characters(platform) > 255) errors.push('Platform is too long (maximum is 255 characters)')
  if (occurredAt === null) errors.push("Occurred at can't be blank")
  if (errors.length > 0) return { ok: false, invalid: `Validation failed: ${errors.join(', ')}` }
  return {
    ok: true,
    event: {
      name: storable(name),
      description: storable(description),
      actor: storable(actor),
      platform: storable(platform),
      environment: isString(event.environment) ? storable(event.environment) : null,
      level: isString(event.level) ? storable(event.level) : null,
      occurredAt: occurredAt as string,
      payload: text,
    },
  }
}
