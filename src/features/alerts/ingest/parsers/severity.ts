// Severity names as stored numbers (GL AlertManagement::Alert severity enum).
const CRITICAL = 0
const HIGH = 1
const MEDIUM = 2
const LOW = 3
const INFO = 4
const UNKNOWN = 5

/**
 * The generic payload's values (GL Payload::Base::SEVERITY_MAPPING, and the contract's `unknown`). The aliases are the
 * monitoring-system format's only, as in GitLab and the contract's tables.
 */
const GENERIC: Record<string, number> = { critical: CRITICAL, high: HIGH, medium: MEDIUM, low: LOW, info: INFO, unknown: UNKNOWN }

/** The monitoring-system format adds aliases (GL Payload::Prometheus::ADDITIONAL_SEVERITY_MAPPING). */
const PROMETHEUS: Record<string, number> = {
  critical: CRITICAL,
  high: HIGH,
  medium: MEDIUM,
  low: LOW,
  info: INFO,
  s1: CRITICAL,
  p1: CRITICAL,
  emergency: CRITICAL,
  fatal: CRITICAL,
  s2: HIGH,
  p2: HIGH,
  major: HIGH,
  page: HIGH,
  s3: MEDIUM,
  p3: MEDIUM,
  error: MEDIUM,
  alert: MEDIUM,
  s4: LOW,
  p4: LOW,
  warn: LOW,
  warning: LOW,
  minor: LOW,
  s5: INFO,
  p5: INFO,
  debug: INFO,
  information: INFO,
  notice: INFO,
}

function lookup(table: Record<string, number>, raw: unknown): number {
  if (typeof raw !== 'string' && typeof raw !== 'number') return CRITICAL
  const key = String(raw).toLowerCase()
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : CRITICAL
}

/** Case-insensitive; anything missing or unknown is critical (the alert's default). */
export function genericSeverity(raw: unknown): number {
  return lookup(GENERIC, raw)
}

export function prometheusSeverity(raw: unknown): number {
  return lookup(PROMETHEUS, raw)
}
