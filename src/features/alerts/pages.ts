import type { WebRouter } from '../sessions/index.js'

/** The project's alert settings page (integrations, test alert) and its alert list. */
export function registerAlertPages(_web: WebRouter) {}
