import type { Db } from '../../db/index.js'
import type { AlertIntegrationRow } from '../../db/schema.js'

/** An active HTTP integration of a project taking alerts at its legacy endpoint with `token`; read by tests. */
export function createTestAlertIntegration(db: Db, projectId: number, token: string, values: Partial<AlertIntegrationRow> = {}) {
  const at = new Date().toISOString()
  return db
    .insertInto('alert_integrations')
    .values({
      project_id: projectId,
      name: 'HTTP',
      type: 'http',
      active: 1,
      endpoint_identifier: 'legacy',
      token,
      created_at: at,
      updated_at: at,
      ...values,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}
