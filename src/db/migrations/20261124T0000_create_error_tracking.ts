import type { Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// Integrated error tracking:
// - a project's settings (GL project_error_tracking_settings): enabled, integrated, and an external tracker's fields;
// - client keys (GL error_tracking_client_keys), the public key SDKs send in their DSN;
// - errors, events grouped by (name, actor, platform) as GitLab groups them (GL error_tracking_errors), `status` with
//   GitLab's enum numbers; platform '' when the event names none, so the group key is one unique index;
// - error events, each with its payload (GL error_tracking_error_events).

export async function up(db: Kysely<any>) {
  await withId(db, db.schema.createTable('error_tracking_settings'))
    .addColumn('project_id', idType(db), (c) => c.notNull().unique().references('projects.id').onDelete('cascade'))
    .addColumn('enabled', 'integer', flag(0))
    .addColumn('integrated', 'integer', flag(0))
    .addColumn('api_url', 'text')
    .addColumn('token', 'text')
    .addColumn('project_name', 'text')
    .addColumn('organization_name', 'text')
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()

  await withId(db, db.schema.createTable('error_tracking_client_keys'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('active', 'integer', flag(1))
    .addColumn('public_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('error_tracking_client_keys_project_id')
    .on('error_tracking_client_keys')
    .columns(['project_id', 'id'])
    .execute()

  await withId(db, db.schema.createTable('error_tracking_errors'))
    .addColumn('project_id', idType(db), (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('first_seen_at', timestampType(db), (c) => c.notNull())
    .addColumn('last_seen_at', timestampType(db), (c) => c.notNull())
    .addColumn('events_count', 'integer', (c) => c.notNull().defaultTo(0))
    // GL enum: unresolved 0, resolved 1, ignored 2
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addColumn('updated_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('error_tracking_errors_group_key')
    .on('error_tracking_errors')
    .columns(['project_id', 'name', 'actor', 'platform'])
    .unique()
    .execute()
  await db.schema
    .createIndex('error_tracking_errors_project_status_id')
    .on('error_tracking_errors')
    .columns(['project_id', 'status', 'id'])
    .execute()

  await withId(db, db.schema.createTable('error_tracking_error_events'))
    .addColumn('error_id', idType(db), (c) => c.notNull().references('error_tracking_errors.id').onDelete('cascade'))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('level', 'text')
    .addColumn('occurred_at', timestampType(db), (c) => c.notNull())
    // JSON text: the event as received
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('error_tracking_error_events_error_id_occurred_at')
    .on('error_tracking_error_events')
    .columns(['error_id', 'occurred_at', 'id'])
    .execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('error_tracking_error_events').execute()
  await db.schema.dropTable('error_tracking_errors').execute()
  await db.schema.dropTable('error_tracking_client_keys').execute()
  await db.schema.dropTable('error_tracking_settings').execute()
}
