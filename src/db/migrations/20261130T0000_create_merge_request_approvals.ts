import type { Kysely } from 'kysely'
import { idType, timestampType } from './portable.js'

// The users who approved a merge request (GL approvals): one row a user, deleted when they revoke it.

export async function up(db: Kysely<any>) {
  await db.schema
    .createTable('merge_request_approvals')
    .addColumn('merge_request_id', idType(db), (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('user_id', idType(db), (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestampType(db), (c) => c.notNull())
    .addPrimaryKeyConstraint('merge_request_approvals_pkey', ['merge_request_id', 'user_id'])
    .execute()
  await db.schema.createIndex('merge_request_approvals_user_id').on('merge_request_approvals').column('user_id').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('merge_request_approvals').execute()
}
