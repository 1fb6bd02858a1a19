import type { WebHookRow } from '../../db/schema.js'

// GL WebHooks::AutoDisabling (with EE's GroupHook): project and group hooks that keep failing are disabled for a while,
// then for good. System hooks never are.

/** More failures in a row than this disable a hook for a while. */
export const TEMPORARILY_DISABLED_FAILURE_THRESHOLD = 3
/** More than this disable it until a test request succeeds (its 40th failure). */
export const PERMANENTLY_DISABLED_FAILURE_THRESHOLD = 39
const INITIAL_BACKOFF_MS = 60_000
const MAX_BACKOFF_MS = 24 * 60 * 60_000
const BACKOFF_GROWTH_FACTOR = 2

export type AlertStatus = 'executable' | 'temporarily_disabled' | 'disabled'

type FailureState = Pick<WebHookRow, 'type' | 'recent_failures' | 'disabled_until'>

export function isAutoDisabling(hook: Pick<WebHookRow, 'type'>): boolean {
  return hook.type !== 'SystemHook'
}

function isTemporarilyDisabled(hook: FailureState, now: Date): boolean {
  return (
    hook.disabled_until !== null &&
    Date.parse(hook.disabled_until) >= now.getTime() &&
    hook.recent_failures > TEMPORARILY_DISABLED_FAILURE_THRESHOLD &&
    hook.recent_failures <= PERMANENTLY_DISABLED_FAILURE_THRESHOLD
  )
}

/** The entity's `alert_status`. */
export function alertStatusOf(hook: FailureState, now: Date): AlertStatus {
  if (!isAutoDisabling(hook)) return 'executable'
  if (isTemporarilyDisabled(hook, now)) return 'temporarily_disabled'
  if (hook.recent_failures > PERMANENTLY_DISABLED_FAILURE_THRESHOLD) return 'disabled'
  return 'executable'
}

export function isExecutable(hook: FailureState, now: Date): boolean {
  return alertStatusOf(hook, now) === 'executable'
}

/**
 * What a request's outcome makes of the hook's failure state (GL `enable!` after a 2xx or 3xx, `backoff!` otherwise):
 * null when nothing changes. A failure counts only while the hook is executable; from the fourth in a row on it also
 * disables the hook for 1 minute, doubling with each further failure up to a day.
 */
export function failureStateAfter(
  hook: FailureState,
  succeeded: boolean,
  now: Date,
): { recent_failures: number; disabled_until: string | null } | null {
  if (!isAutoDisabling(hook)) return null
  if (succeeded) {
    if (hook.recent_failures === 0 && hook.disabled_until === null) return null
    return { recent_failures: 0, disabled_until: null }
  }
  if (!isExecutable(hook, now)) return null
  const failures = Math.min(Math.max(hook.recent_failures + 1, 1), PERMANENTLY_DISABLED_FAILURE_THRESHOLD + 1)
  if (failures <= TEMPORARILY_DISABLED_FAILURE_THRESHOLD) {
    return failures === hook.recent_failures ? null : { recent_failures: failures, disabled_until: hook.disabled_until }
  }
  // The backoff grows with the failures counted before this one.
  const exponent = hook.recent_failures - TEMPORARILY_DISABLED_FAILURE_THRESHOLD
  const backoffMs = Math.min(Math.max(INITIAL_BACKOFF_MS * BACKOFF_GROWTH_FACTOR ** exponent, INITIAL_BACKOFF_MS), MAX_BACKOFF_MS)
  return { recent_failures: failures, disabled_until: new Date(now.getTime() + backoffMs).toISOString() }
}
