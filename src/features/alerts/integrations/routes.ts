import type { ApiRouter } from '../../../http/route.js'

/** A project's alert integrations: `/projects/:id/alert_management/http_integrations`. */
export function registerAlertIntegrationRoutes(_api: ApiRouter) {}
