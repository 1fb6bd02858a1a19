import type { ApiRouter } from '../../http/route.js'

export function registerProtectedRefRoutes(_api: ApiRouter) {}
