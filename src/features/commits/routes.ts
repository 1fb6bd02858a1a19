import type { ApiRouter } from '../../http/route.js'

export function registerCommitRoutes(_api: ApiRouter) {}
