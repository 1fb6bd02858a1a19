import type { ApiRouter } from '../../http/route.js'

/** A project's registered Kubernetes clusters (GL API::ProjectClusters). */
export function registerClusterRoutes(_api: ApiRouter) {}
