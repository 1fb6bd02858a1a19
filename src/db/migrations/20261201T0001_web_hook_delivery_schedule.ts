import { sql, type Kysely } from 'kysely'
import { timestampType } from './portable.js'

// Webhook deliveries are sent in batches by whichever worker claims them: each says when it may be sent next and
// until when a worker holds it. One row counts the sending rounds: the changes of one round share one sending job.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('web_hook_deliveries').addColumn('run_at', timestampType(db)).execute()
  await db.schema.alterTable('web_hook_deliveries').addColumn('locked_until', timestampType(db)).execute()
  await sql`update web_hook_deliveries set run_at = created_at`.execute(db)
  await db.schema.createIndex('web_hook_deliveries_run_at').on('web_hook_deliveries').column('run_at').execute()
  await db.schema
    .createTable('web_hook_sending')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('round', 'bigint', (c) => c.notNull())
    .execute()
  await db.insertInto('web_hook_sending').values({ id: 1, round: 0 }).execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('web_hook_sending').execute()
  await db.schema.dropIndex('web_hook_deliveries_run_at').execute()
  await db.schema.alterTable('web_hook_deliveries').dropColumn('locked_until').execute()
  await db.schema.alterTable('web_hook_deliveries').dropColumn('run_at').execute()
}
