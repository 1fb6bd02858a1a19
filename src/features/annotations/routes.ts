import type { ApiRouter } from '../../http/route.js'

/** Metrics dashboard annotations under environments and clusters (GL API::Metrics::Dashboard::Annotations). */
export function registerAnnotationRoutes(_api: ApiRouter) {}
