import type { ApiRouter } from '../../http/route.js'

/** A project's environments (GL API::Environments). */
export function registerEnvironmentRoutes(_api: ApiRouter) {}
