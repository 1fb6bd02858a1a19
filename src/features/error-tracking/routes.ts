import type { ApiRouter } from '../../http/route.js'

/** Error tracking settings, client keys and errors of a project (`/projects/:id/error_tracking/…`). */
export function registerErrorTrackingRoutes(_api: ApiRouter) {}
