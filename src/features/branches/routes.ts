import type { ApiRouter } from '../../http/route.js'

export function registerBranchRoutes(_api: ApiRouter) {}
