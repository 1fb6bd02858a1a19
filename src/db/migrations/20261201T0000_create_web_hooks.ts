import type { Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// Outgoing webhooks (GitLab's web_hooks: project, group and system hooks in one table), the deliveries waiting to be
// sent (written in the transaction of the change they tell of) and the log of every request sent (web_hook_logs).

const EVENT_SWITCHES = [
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'merge_requests_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'feature_flag_events',
  'releases_events',
  'milestone_events',
  'emoji_events',
  'resource_access_token_events',
  'vulnerability_events',
  'member_events',
  'subgroup_events',
  'project_events',
  'repository_update_events',
]

export async function up(db: Kysely<any>) {
  const timestamp = timestampType(db)
  let hooks = withId(db, db.schema.createTable('web_hooks'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('project_id', idType(db), (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', idType(db), (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('token', 'text')
    .addColumn('url_variables', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('custom_headers', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('push_events', 'integer', flag(1))
  for (const name of EVENT_SWITCHES) hooks = hooks.addColumn(name, 'integer', flag(0))
  await hooks
    .addColumn('enable_ssl_verification', 'integer', flag(1))
    .addColumn('push_events_branch_filter', 'text')
    .addColumn('branch_filter_strategy', 'text', (c) => c.notNull().defaultTo('wildcard'))
    .addColumn('custom_webhook_template', 'text')
    .addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_until', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('web_hooks_project_id').on('web_hooks').column('project_id').execute()
  await db.schema.createIndex('web_hooks_group_id').on('web_hooks').column('group_id').execute()
  await db.schema.createIndex('web_hooks_type').on('web_hooks').column('type').execute()

  await withId(db, db.schema.createTable('web_hook_deliveries'))
    .addColumn('web_hook_id', idType(db), (c) => c.notNull().references('web_hooks.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('event_uuid', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('web_hook_deliveries_web_hook_id').on('web_hook_deliveries').column('web_hook_id').execute()

  await withId(db, db.schema.createTable('web_hook_logs'))
    .addColumn('web_hook_id', idType(db), (c) => c.notNull().references('web_hooks.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('url_hash', 'text')
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('request_data', 'text', (c) => c.notNull())
    .addColumn('response_headers', 'text', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('response_status', 'text', (c) => c.notNull())
    .addColumn('execution_duration', 'double precision', (c) => c.notNull())
    .addColumn('internal_error_message', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('web_hook_logs_web_hook_id_created_at').on('web_hook_logs').columns(['web_hook_id', 'created_at']).execute()
  await db.schema.createIndex('web_hook_logs_created_at').on('web_hook_logs').column('created_at').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('web_hook_logs').execute()
  await db.schema.dropTable('web_hook_deliveries').execute()
  await db.schema.dropTable('web_hooks').execute()
}
