import type { ApiRouter } from '../../http/route.js'

export function registerCommitActionRoutes(_api: ApiRouter) {}
