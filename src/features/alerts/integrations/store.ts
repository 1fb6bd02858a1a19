import type { Db } from '../../../db/index.js'
import type { AlertIntegrationRow } from '../../../db/schema.js'

/**
 * The active integration of a project with this endpoint identifier (GL HttpIntegrationsFinder, active: true). The
 * external-tracker integration receives no alerts, so it is never found here.
 */
export function findActiveIntegration(db: Db, projectId: number, endpointIdentifier: string): Promise<AlertIntegrationRow | undefined> {
  return db
    .selectFrom('alert_integrations')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('endpoint_identifier', '=', endpointIdentifier)
    .where('active', '=', 1)
    .where('type', '!=', 'opsgenie')
    .orderBy('id')
    .executeTakeFirst()
}
