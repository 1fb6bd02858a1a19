import type { Db } from '../../../db/index.js'
import { lockRowForTransaction } from '../../../db/locking.js'
import type { AlertIntegrationRow } from '../../../db/schema.js'
import { fetchOffsetPage, type OffsetPage } from '../../../db/pagination.js'
import type { Insertable, Updateable } from 'kysely'
import type { AlertIntegrationsTable } from '../../../db/schema.js'

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

export function findIntegration(db: Db, projectId: number, id: number): Promise<AlertIntegrationRow | undefined> {
  return db.selectFrom('alert_integrations').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

/** A project's integrations by id (GL `ordered_by_id`), one page. */
export function selectIntegrationsPage(db: Db, projectId: number, page: number, perPage: number): Promise<OffsetPage<AlertIntegrationRow>> {
  const query = db.selectFrom('alert_integrations').selectAll().where('project_id', '=', projectId).orderBy('id')
  return fetchOffsetPage(db, query, page, perPage)
}

/** Every integration of a project, by id. */
export function selectIntegrations(db: Db, projectId: number): Promise<AlertIntegrationRow[]> {
  return db.selectFrom('alert_integrations').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}

/**
 * Serialises changes to one project's integrations within a transaction, so two requests cannot both pass the
 * per-project limits. SQLite runs one write transaction at a time already.
 */
export async function lockProjectIntegrations(trx: Db, projectId: number): Promise<void> {
  await lockRowForTransaction(trx, 'projects', projectId)
}

export function insertIntegration(db: Db, row: Insertable<AlertIntegrationsTable>): Promise<AlertIntegrationRow> {
  return db.insertInto('alert_integrations').values(row).returningAll().executeTakeFirstOrThrow()
}

export function updateIntegrationRow(db: Db, id: number, changes: Updateable<AlertIntegrationsTable>): Promise<AlertIntegrationRow> {
  return db.updateTable('alert_integrations').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteIntegrationRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('alert_integrations').where('id', '=', id).execute()
}
