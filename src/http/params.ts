import type { Static, TObject, TSchema } from '@sinclair/typebox'
import { MissingParam, ParamError } from '../core/errors.js'

/**
 * The one parameter parser: declared params are coerced the way Grape does it
 * (integers from strings, dry-types booleans, arrays, hashes); undeclared params are dropped.
 * The first missing required param is reported with the contract's body; type failures are
 * joined Grape-style: `{"error":"page is invalid, sort does not have a valid value"}`.
 */

const TRUE_WORDS = new Set(['1', 'on', 'On', 'ON', 't', 'true', 'True', 'TRUE', 'T', 'y', 'yes', 'Yes', 'YES', 'Y'])
const FALSE_WORDS = new Set(['0', 'off', 'Off', 'OFF', 'f', 'false', 'False', 'FALSE', 'F', 'n', 'no', 'No', 'NO', 'N'])

// Integers are stored in 32-bit columns unless a schema widens the range.
const INT32_MIN = -2147483648
const INT32_MAX = 2147483647

const INVALID = Symbol('invalid')
const NOT_IN_LIST = Symbol('not in list')
type Failure = typeof INVALID | typeof NOT_IN_LIST

interface Problem {
  name: string
  failure: Failure
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isAbsent(value: unknown, schema: TSchema): boolean {
  // A blank value for a non-string scalar means "not given", as Grape coerces '' to nil.
  if (value === undefined) return true
  if (value === '' && !acceptsString(schema)) return true
  return value === null && !acceptsNull(schema)
}

function acceptsNull(schema: TSchema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true
  return Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === 'null')
}

function acceptsString(schema: TSchema): boolean {
  if (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'))) return true
  return Array.isArray(schema.anyOf) && schema.anyOf.some((s: TSchema) => s.type === 'string' && s.const === undefined)
}

function coerceInteger(value: unknown, schema: TSchema): number | Failure {
  let n: number
  if (typeof value === 'number') n = value
  else if (typeof value === 'string' && /^\s*[+-]?\d{1,20}\s*$/.test(value)) n = Number(value)
  else return INVALID
  if (!Number.isInteger(n)) return INVALID
  const min = typeof schema.minimum === 'number' ? schema.minimum : INT32_MIN
  const max = typeof schema.maximum === 'number' ? schema.maximum : INT32_MAX
  if (n < min || n > max) return typeof schema.minimum === 'number' && n >= INT32_MIN && n <= INT32_MAX ? NOT_IN_LIST : INVALID
  return n
}

function coerceString(value: unknown, schema: TSchema): string | Failure {
  let s: string
  if (typeof value === 'string') s = value
  else if (typeof value === 'number' || typeof value === 'boolean') s = String(value)
  else return INVALID
  if (schema.format === 'date') {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s.trim())
    if (!m) return INVALID
    const d = new Date(`${m[0]}T00:00:00.000Z`)
    return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== m[0] ? INVALID : m[0]
  }
  if (schema.format === 'date-time') {
    if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.test(s.trim())) return INVALID
    const d = new Date(s.trim().replace(' ', 'T'))
    return Number.isNaN(d.getTime()) ? INVALID : d.toISOString()
  }
  return s
}

function coerce(value: unknown, schema: TSchema, name: string, problems: Problem[]): unknown {
  if (value === null && acceptsNull(schema)) return null
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.filter((s: TSchema) => s.type !== 'null') as TSchema[]
    if (members.length > 0 && members.every((s) => s.const !== undefined)) {
      const match = members.find((s) => String(s.const) === String(value))
      if (match && (typeof value === 'string' || typeof value === 'number')) return match.const
      problems.push({ name, failure: NOT_IN_LIST })
      return undefined
    }
    for (const member of members) {
      const attempt: Problem[] = []
      const result = coerce(value, member, name, attempt)
      if (attempt.length === 0) return result
    }
    problems.push({ name, failure: INVALID })
    return undefined
  }
  let result: unknown
  // A nullable type (`[T, "null"]`, see http/schema.ts) reads a non-null value as T.
  const type: unknown = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type
  switch (type) {
    case 'integer':
      result = coerceInteger(value, schema)
      break
    case 'number':
      result = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : INVALID
      if (typeof result === 'number' && !Number.isFinite(result)) result = INVALID
      break
    case 'boolean':
      if (typeof value === 'boolean') result = value
      else if (typeof value === 'string' && TRUE_WORDS.has(value)) result = true
      else if (typeof value === 'string' && FALSE_WORDS.has(value)) result = false
      else if (value === 1 || value === 0) result = value === 1
      else result = INVALID
      break
    case 'string':
      result = coerceString(value, schema)
      break
    case 'array': {
      let items: unknown[]
      if (Array.isArray(value)) items = value
      else if (typeof value === 'string' && schema.commaSeparated === true) items = value.split(',').filter((s) => s !== '')
      else if (isPlainObject(value) && Object.keys(value).every((k) => /^\d+$/.test(k))) items = Object.values(value)
      else {
        result = INVALID
        break
      }
      const itemProblems: Problem[] = []
      const out = items.map((item) => coerce(item, schema.items as TSchema, name, itemProblems))
      if (itemProblems.length > 0) {
        problems.push(itemProblems[0])
        return undefined
      }
      return out
    }
    case 'object':
      if (!isPlainObject(value)) {
        result = INVALID
        break
      }
      return coerceObject(value, schema, name, problems)
    default:
      result = value
  }
  if (result === INVALID || result === NOT_IN_LIST) {
    problems.push({ name, failure: result })
    return undefined
  }
  if (schema.const !== undefined && result !== schema.const) {
    problems.push({ name, failure: NOT_IN_LIST })
    return undefined
  }
  return result
}

function coerceObject(raw: Record<string, unknown>, schema: TSchema, prefix: string, problems: Problem[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const properties = (schema.properties ?? {}) as Record<string, TSchema>
  for (const [key, propertySchema] of Object.entries(properties)) {
    const name = prefix ? `${prefix}[${key}]` : key
    const value = Object.hasOwn(raw, key) ? raw[key] : undefined
    if (isAbsent(value, propertySchema)) {
      const fallback: unknown = propertySchema.default
      // Only a default that is an object can be changed by whoever reads it; structuredClone costs a microsecond or more.
      if (fallback !== undefined) out[key] = typeof fallback === 'object' && fallback !== null ? structuredClone(fallback) : fallback
      continue
    }
    const coerced = coerce(value, propertySchema, name, problems)
    if (coerced !== undefined) out[key] = coerced
  }
  const additional = schema.additionalProperties
  if (additional && typeof additional === 'object') {
    for (const [key, value] of Object.entries(raw)) {
      if (Object.hasOwn(properties, key)) continue
      const coerced = coerce(value, additional as TSchema, prefix ? `${prefix}[${key}]` : key, problems)
      if (coerced !== undefined) out[key] = coerced
    }
  }
  return out
}

function firstMissing(raw: Record<string, unknown>, schema: TObject, prefix = ''): string | null {
  for (const key of schema.required ?? []) {
    const propertySchema = schema.properties[key]
    const value = Object.hasOwn(raw, key) ? raw[key] : undefined
    if (isAbsent(value, propertySchema) && propertySchema.default === undefined) return prefix ? `${prefix}[${key}]` : key
  }
  return null
}

/** Coerces merged request params against a route's declared params, or throws the GitLab error. */
export function parseParams<T extends TObject>(schema: T, raw: Record<string, unknown>): Static<T> {
  const missing = firstMissing(raw, schema)
  if (missing !== null) throw new MissingParam(missing)
  const problems: Problem[] = []
  const out = coerceObject(raw, schema, '', problems)
  if (problems.length > 0) {
    throw new ParamError(
      problems.map((p) => `${p.name} ${p.failure === INVALID ? 'is invalid' : 'does not have a valid value'}`).join(', '),
    )
  }
  return out as Static<T>
}

/** The client's If-Unmodified-Since; an unreadable one is ignored, as GitLab's `Time.parse … rescue nil` ignores it. */
export function unmodifiedSinceOf(header: string | undefined): Date | null {
  if (!header) return null
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : new Date(at)
}
