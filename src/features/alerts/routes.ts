import type { ApiRouter } from '../../http/route.js'

/** Alerts of a project: list, show, change status. */
export function registerAlertRoutes(_api: ApiRouter) {}
