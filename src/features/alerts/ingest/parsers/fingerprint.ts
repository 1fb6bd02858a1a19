import { createHash } from 'node:crypto'
import { isBlank, rubyInspect, rubyToS } from './values.js'

function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex')
}

function flattenDeep(values: readonly unknown[]): unknown[] {
  return values.flatMap((value) => (Array.isArray(value) ? flattenDeep(value) : [value]))
}

/**
 * GL Gitlab::AlertManagement::Fingerprint.generate: SHA-1 hex of the value's `to_s`; an array is flattened and its
 * elements' `to_s` joined with no separator. Blank values have none.
 */
export function fingerprintOf(value: unknown): string | null {
  if (isBlank(value)) return null
  if (Array.isArray(value)) return sha1(flattenDeep(value).map(rubyToS).join(''))
  return sha1(rubyToS(value))
}

/** Nested hashes as dotted keys, arrays kept (GL Gitlab::Utils::InlineHash.merge_keys). */
function dottedPairs(value: Record<string, unknown>, prefix: string, into: [string, unknown][]): [string, unknown][] {
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key
    if (child !== null && typeof child === 'object' && !Array.isArray(child)) dottedPairs(child as Record<string, unknown>, path, into)
    else into.push([path, child])
  }
  return into
}

const FINGERPRINT_EXCLUDED = new Set(['start_time', 'end_time', 'hosts'])

/**
 * The generated fingerprint of a generic payload without one (EE Payload::Generic, feature generic_alert_fingerprinting):
 * the payload without start_time, end_time and hosts, as sorted dotted pairs written as Ruby's `Array#to_s`.
 */
export function payloadFingerprint(payload: Record<string, unknown>): string | null {
  const rest = Object.entries(payload).filter(([key]) => !FINGERPRINT_EXCLUDED.has(key))
  if (rest.every(([, value]) => isBlank(value))) return null
  const pairs = dottedPairs(Object.fromEntries(rest), '', []).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return sha1(rubyInspect(pairs))
}
