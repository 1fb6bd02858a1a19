import type { Kysely } from 'kysely'
import { idType } from './portable.js'

// What a push event shows as `push_data` (GL push_event_payloads): one row per push event, removed with its event.

export async function up(db: Kysely<any>) {
  await db.schema
    .createTable('push_event_payloads')
    .addColumn('event_id', idType(db), (c) => c.primaryKey().references('events.id').onDelete('cascade'))
    .addColumn('commit_count', 'integer', (c) => c.notNull())
    // 'created' | 'removed' | 'pushed'
    .addColumn('action', 'text', (c) => c.notNull())
    // 'branch' | 'tag'
    .addColumn('ref_type', 'text', (c) => c.notNull())
    .addColumn('commit_from', 'text')
    .addColumn('commit_to', 'text')
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('commit_title', 'text')
    .execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('push_event_payloads').execute()
}
