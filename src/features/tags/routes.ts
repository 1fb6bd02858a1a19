import type { ApiRouter } from '../../http/route.js'

export function registerTagRoutes(_api: ApiRouter) {}
