/** One frame of a stack trace as svc shows it (GraphQL SentryErrorStackTraceEntry, in snake case). */
export interface StackTraceEntry {
  function: string | null
  col: number | null
  line: number | null
  file_name: string | null
  abs_path: string | null
  trace_context: { line: number; context: string }[]
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const stringOr = (value: unknown) => (typeof value === 'string' ? value : null)
const numberOr = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/** GL ErrorTracking::StacktraceBuilder: the first entry of `exception` (array or `{values}`), else of `threads`, with a stack trace. */
function framesOf(payload: Record<string, unknown>): unknown[] {
  for (const key of ['exception', 'threads']) {
    const entry = payload[key]
    const values = Array.isArray(entry) ? entry : isObject(entry) && Array.isArray(entry.values) ? entry.values : []
    const withTrace = values.find((value) => isObject(value) && isObject(value.stacktrace) && Array.isArray(value.stacktrace.frames))
    if (withTrace) return ((withTrace as Record<string, Record<string, unknown>>).stacktrace.frames as unknown[]) ?? []
  }
  return []
}

/** Numbered source lines around the frame's line: pre_context, context_line, post_context (GL build_stacktrace_context). */
function contextOf(frame: Record<string, unknown>): StackTraceEntry['trace_context'] {
  const line = numberOr(frame.lineno)
  if (line === null) return []
  const pre = Array.isArray(frame.pre_context) ? frame.pre_context : []
  const post = Array.isArray(frame.post_context) ? frame.post_context : []
  const lines: { line: number; context: string }[] = []
  const add = (list: unknown[], start: number) =>
    list.forEach((text, index) => {
      if (typeof text === 'string') lines.push({ line: start + index, context: text })
    })
  add(pre, line - pre.length)
  add([frame.context_line], line)
  add(post, line + 1)
  return lines
}

/** The stack trace of an event's payload (JSON text), frames in the order the SDK sent them (innermost last). */
export function stackTraceOf(payloadText: string): StackTraceEntry[] {
  let payload: unknown
  try {
    payload = JSON.parse(payloadText)
  } catch {
    return []
  }
  if (!isObject(payload)) return []
  return framesOf(payload)
    .filter(isObject)
    .map((frame) => ({
      function: stringOr(frame.function),
      col: numberOr(frame.colno),
      line: numberOr(frame.lineno),
      file_name: stringOr(frame.filename),
      abs_path: stringOr(frame.abs_path),
      trace_context: contextOf(frame),
    }))
}

/** A top-level string of the payload (`platform`, `release`), or null. */
export function payloadString(payloadText: string, key: string): string | null {
  try {
    const payload = JSON.parse(payloadText) as unknown
    return isObject(payload) ? stringOr(payload[key]) : null
  } catch {
    return null
  }
}

/**
 * Which frame of the stack trace (as `stackTraceOf` lists them) the error is blamed on: the innermost frame its culprit
 * names (`function(module)`, as the collector writes it), else the innermost frame of the application's own code
 * (`in_app`); null when neither is known.
 */
export function culpritFrameIndex(payloadText: string, culprit: string): number | null {
  let payload: unknown
  try {
    payload = JSON.parse(payloadText)
  } catch {
    return null
  }
  if (!isObject(payload)) return null
  const frames = framesOf(payload).filter(isObject)
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value))
  const named = frames.findLastIndex((frame) => `${text(frame.function)}(${text(frame.module)})` === culprit)
  if (named >= 0) return named
  const inApp = frames.findLastIndex((frame) => frame.in_app === true)
  return inApp >= 0 ? inApp : null
}
