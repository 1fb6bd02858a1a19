import type { WebRouter } from '../sessions/index.js'

/** The project's error list and an error with its latest stack trace. */
export function registerErrorTrackingPages(_web: WebRouter) {}
