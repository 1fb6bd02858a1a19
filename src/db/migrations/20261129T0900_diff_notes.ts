import type { Kysely } from 'kysely'
import { idType, timestampType } from './portable.js'

// Threads and comments on a merge request's diff lines (GL notes.type, discussion_id, position, line_code): a
// DiffNote keeps GitLab's position as JSON text; DiffNotes and DiscussionNotes of a merge request can be resolved.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('notes').addColumn('type', 'text').execute()
  await db.schema.alterTable('notes').addColumn('discussion_id', 'text').execute()
  await db.schema.alterTable('notes').addColumn('position', 'text').execute()
  await db.schema.alterTable('notes').addColumn('line_code', 'text').execute()
  await db.schema.alterTable('notes').addColumn('resolved_at', timestampType(db)).execute()
  await db.schema.alterTable('notes').addColumn('resolved_by_id', idType(db)).execute()
  await db.schema.createIndex('notes_discussion_id').on('notes').column('discussion_id').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropIndex('notes_discussion_id').execute()
  for (const column of ['resolved_by_id', 'resolved_at', 'line_code', 'position', 'discussion_id', 'type']) {
    await db.schema.alterTable('notes').dropColumn(column).execute()
  }
}
