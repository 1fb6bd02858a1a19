import type { FastifyInstance } from 'fastify'
import type { PlainRouteDeps } from '../../../http/route.js'

/** The collector SDKs report to: `/api/v4/error_tracking/collector/api/:id/store` and `…/envelope` (GL API::ErrorTracking::Collector). */
export function registerErrorCollectorRoutes(_app: FastifyInstance, _deps: PlainRouteDeps) {}
