import { sql, type Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// What alerts and the operations resources they refer to need:
// - environments of a project (GL environments), `state` available | stopping | stopped;
// - clusters, a project's registered Kubernetes clusters (GL clusters + platform_kubernetes in one row);
// - metrics dashboard annotations under an environment or a cluster (GL metrics_dashboard_annotations);
// - alert integrations (GL alert_management_http_integrations): the HTTP endpoints and the Prometheus endpoint, each
//   with its key and whether it opens incidents from new alerts and closes them when an alert resolves;
// - alerts (GL alert_management_alerts), `severity` and `status` with GitLab's enum numbers; at most one alert per
//   fingerprint that is not resolved (a partial unique index, as GitLab's);
// - system notes on alerts.

export async function up(db: Kysely<any>) {
  await withId(db, db.schema.createTable('environments'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('external_url', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('available'))
    .addColumn('tier', 'text', (c) => c.notNull().defaultTo('other'))
    .addColumn('auto_stop_at', timestampType(db))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema.createIndex('environments_project_id_name').on('environments').columns(['project_id', 'name']).unique().execute()
  await db.schema.createIndex('environments_project_id_slug').on('environments').columns(['project_id', 'slug']).unique().execute()

  await withId(db, db.schema.createTable('clusters'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', idType(db), (c) => c.references('users.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', flag(1))
    .addColumn('managed', 'integer', flag(1))
    .addColumn('domain', 'text')
    .addColumn('environment_scope', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('namespace_per_environment', 'integer', flag(1))
    .addColumn('api_url', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text')
    .addColumn('authorization_type', 'text', (c) => c.notNull().defaultTo('rbac'))
    .addColumn('ca_cert', 'text')
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema.createIndex('clusters_project_id_id').on('clusters').columns(['project_id', 'id']).execute()

  await withId(db, db.schema.createTable('metrics_dashboard_annotations'))
    .addColumn('environment_id', idType(db), (c) => c.references('environments.id').onDelete('cascade'))
    .addColumn('cluster_id', idType(db), (c) => c.references('clusters.id').onDelete('cascade'))
    .addColumn('dashboard_path', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('starting_at', timestampType(db), (c) => c.notNull())
    .addColumn('ending_at', timestampType(db))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('annotations_environment_dashboard_starting')
    .on('metrics_dashboard_annotations')
    .columns(['environment_id', 'dashboard_path', 'starting_at'])
    .execute()
  await db.schema
    .createIndex('annotations_cluster_dashboard_starting')
    .on('metrics_dashboard_annotations')
    .columns(['cluster_id', 'dashboard_path', 'starting_at'])
    .execute()

  await withId(db, db.schema.createTable('alert_integrations'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // 'http' | 'prometheus'
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', flag(0))
    .addColumn('endpoint_identifier', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    // The Prometheus integration's base URL.
    .addColumn('api_url', 'text')
    // JSON: the sample payload and the custom field mapping built from it.
    .addColumn('payload_example', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('payload_attribute_mappings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('create_incident', 'integer', flag(0))
    .addColumn('auto_close_incident', 'integer', flag(1))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('alert_integrations_project_id_endpoint_identifier')
    .on('alert_integrations')
    .columns(['project_id', 'endpoint_identifier'])
    .unique()
    .execute()

  await withId(db, db.schema.createTable('alerts'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('integration_id', idType(db), (c) => c.references('alert_integrations.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // GL enum: critical 0, high 1, medium 2, low 3, info 4, unknown 5
    .addColumn('severity', 'integer', (c) => c.notNull().defaultTo(0))
    // GL enum: triggered 0, acknowledged 1, resolved 2, ignored 3
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', timestampType(db), (c) => c.notNull())
    .addColumn('ended_at', timestampType(db))
    .addColumn('monitoring_tool', 'text')
    .addColumn('service', 'text')
    // JSON array of strings
    .addColumn('hosts', 'text', (c) => c.notNull().defaultTo('[]'))
    // SHA-1, 40 lowercase hex characters
    .addColumn('fingerprint', 'text')
    .addColumn('environment_id', idType(db), (c) => c.references('environments.id').onDelete('set null'))
    .addColumn('runbook', 'text')
    // JSON: the payload as received
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('issue_id', idType(db), (c) => c.references('issues.id').onDelete('set null'))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema.createIndex('alerts_project_id_iid').on('alerts').columns(['project_id', 'iid']).unique().execute()
  await sql`create unique index alerts_open_fingerprint on alerts (project_id, fingerprint) where status <> 2 and fingerprint is not null`.execute(
    db,
  )
  await db.schema.createIndex('alerts_project_id_status_id').on('alerts').columns(['project_id', 'status', 'id']).execute()
  await db.schema.createIndex('alerts_issue_id').on('alerts').column('issue_id').execute()

  await db.schema
    .alterTable('notes')
    .addColumn('alert_id', idType(db), (c) => c.references('alerts.id').onDelete('cascade'))
    .execute()
  await db.schema.createIndex('notes_alert_id').on('notes').column('alert_id').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropIndex('notes_alert_id').execute()
  await db.schema.alterTable('notes').dropColumn('alert_id').execute()
  await db.schema.dropTable('alerts').execute()
  await db.schema.dropTable('alert_integrations').execute()
  await db.schema.dropTable('metrics_dashboard_annotations').execute()
  await db.schema.dropTable('clusters').execute()
  await db.schema.dropTable('environments').execute()
}
