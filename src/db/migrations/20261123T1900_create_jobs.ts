import type { Kysely } from 'kysely'
import { timestampType, withId } from './portable.js'

// Durable background jobs (DESIGN.md § Jobs): every node's worker claims rows from this one table.
export async function up(db: Kysely<any>) {
  const timestamp = timestampType(db)
  await withId(db, db.schema.createTable('jobs'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', timestamp, (c) => c.notNull())
    .addColumn('lease_until', timestamp)
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    // Periodic jobs take `<kind>@<slot>`, so every node may schedule a slot and only one row exists.
    .addColumn('unique_key', 'text', (c) => c.unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addColumn('finished_at', timestamp)
    .execute()
  await db.schema.createIndex('jobs_state_run_at').on('jobs').columns(['state', 'run_at']).execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('jobs').execute()
}
