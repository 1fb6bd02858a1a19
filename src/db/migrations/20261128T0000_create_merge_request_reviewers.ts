import type { Kysely } from 'kysely'
import { idType, timestampType } from './portable.js'

// The users asked to review a merge request (GL merge_request_reviewers), with the state of their review:
// 'unreviewed' until they review it.

export async function up(db: Kysely<any>) {
  await db.schema
    .createTable('merge_request_reviewers')
    .addColumn('merge_request_id', idType(db), (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('user_id', idType(db), (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('unreviewed'))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('merge_request_reviewers_pkey', ['merge_request_id', 'user_id'])
    .execute()
  await db.schema.createIndex('merge_request_reviewers_user_id').on('merge_request_reviewers').column('user_id').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('merge_request_reviewers').execute()
}
