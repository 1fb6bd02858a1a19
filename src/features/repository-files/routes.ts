import type { ApiRouter } from '../../http/route.js'

export function registerRepositoryFileRoutes(_api: ApiRouter) {}
