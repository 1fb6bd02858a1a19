import type { FastifyInstance } from 'fastify'
import type { PlainRouteDeps } from '../../../http/route.js'

/** The alert webhooks at GitLab's URLs: `…/alerts/notify(.json)`, `…/alerts/notify/:name/:endpoint_identifier(.json)`, `…/prometheus/alerts/notify(.json)`. */
export function registerAlertWebhookRoutes(_app: FastifyInstance, _deps: PlainRouteDeps) {}
