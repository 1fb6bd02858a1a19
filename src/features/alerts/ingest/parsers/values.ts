// Reading payload values as GitLab's alert payload classes do (GL lib/gitlab/alert_management/payload/base.rb).

/** Rails `blank?`: nil, false, empty or whitespace-only strings, empty arrays and hashes. */
export function isBlank(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true
  if (typeof value === 'string') return value.trim() === ''
  if (Array.isArray(value)) return value.length === 0
  if (typeof value === 'object') return Object.keys(value).length === 0
  return false
}

/** Rails `presence`. */
export function presence<T>(value: T): T | undefined {
  return isBlank(value) ? undefined : value
}

/** Ruby `Hash#dig` over string keys and integer indexes; anything else along the way ends the walk. */
export function dig(payload: unknown, path: readonly (string | number)[]): unknown {
  let current: unknown = payload
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    if (Array.isArray(current)) {
      if (typeof key !== 'number') return undefined
      current = current[key < 0 ? current.length + key : key]
    } else {
      if (typeof key !== 'string') return undefined
      current = Object.prototype.hasOwnProperty.call(current, key) ? (current as Record<string, unknown>)[key] : undefined
    }
  }
  return current
}

/** The value at the first path that holds a truthy value (GL Base#value_for_paths). */
export function firstValue(payload: unknown, paths: readonly (readonly (string | number)[])[]): unknown {
  for (const path of paths) {
    const value = dig(payload, path)
    if (value !== undefined && value !== null && value !== false) return value
  }
  return undefined
}

/** Ruby `inspect` of JSON values, as `to_s` of an Array or a Hash writes them. */
export function rubyInspect(value: unknown): string {
  if (value === null || value === undefined) return 'nil'
  if (typeof value === 'string') return rubyString(value)
  if (typeof value === 'number') return rubyNumber(value)
  if (typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return `[${value.map(rubyInspect).join(', ')}]`
  return `{${Object.entries(value)
    .map(([key, child]) => `${rubyString(key)}=>${rubyInspect(child)}`)
    .join(', ')}}`
}

const RUBY_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  '\f': '\\f',
  '\v': '\\v',
  '\u0007': '\\a',
  '\b': '\\b',
  '\u001b': '\\e',
}

function rubyString(text: string): string {
  let out = ''
  for (let at = 0; at < text.length; at++) {
    const c = text[at]
    const code = c.charCodeAt(0)
    if (RUBY_ESCAPES[c] !== undefined) out += RUBY_ESCAPES[c]
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`
    // Ruby escapes `#` only where it would start an interpolation.
    else if (c === '#' && '{$@'.includes(text[at + 1] ?? '')) out += '\\#'
    else out += c
  }
  return `"${out}"`
}

/** Ruby `to_s` of a JSON number: integers plainly, floats always with a fraction. */
function rubyNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value)
  if (Number.isInteger(value)) return value.toExponential().replace(/e\+?/, 'e+').replace('e+-', 'e-')
  return String(value)
}

/** Ruby `to_s` of a scalar or structure read from JSON. */
export function rubyToS(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number') return rubyNumber(value)
  if (typeof value === 'boolean') return String(value)
  return rubyInspect(value)
}

/** Rails `String#truncate(length)`: at most `length` characters, ending in "..." when cut. */
export function truncate(text: string, length: number, omission = '...'): string {
  const chars = Array.from(text)
  if (chars.length <= length) return text
  const stop = Math.max(0, length - omission.length)
  return chars.slice(0, stop).join('') + omission
}

/** Ruby `Time.parse(value).utc`, or undefined when the value is no time. */
export function parseTime(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined
  const millis = Date.parse(value)
  if (Number.isNaN(millis)) return undefined
  return new Date(millis).toISOString()
}
