import type { ApiRouter } from '../../http/route.js'

export function registerRepositoryBrowseRoutes(_api: ApiRouter) {}
