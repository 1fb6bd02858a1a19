import type { Kysely } from 'kysely'
import { idType, timestampType, withId } from './portable.js'

// The versions of a merge request's diff (GL merge_request_diffs): one when it is opened and one each time its source
// branch moves, with the three commits that define it and what its diff held. `real_size` is GitLab's string ("3",
// "1000+"); `state` is 'collected', 'overflow' or 'empty'.

export async function up(db: Kysely<any>) {
  await withId(db, db.schema.createTable('merge_request_diffs'))
    .addColumn('merge_request_id', idType(db), (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('head_commit_sha', 'text', (c) => c.notNull())
    .addColumn('base_commit_sha', 'text')
    .addColumn('start_commit_sha', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('real_size', 'text')
    .addColumn('patch_id_sha', 'text')
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('merge_request_diffs_merge_request_id_id')
    .on('merge_request_diffs')
    .columns(['merge_request_id', 'id'])
    .execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('merge_request_diffs').execute()
}
