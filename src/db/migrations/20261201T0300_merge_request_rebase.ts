import type { Kysely } from 'kysely'
import { idType } from './portable.js'

// A merge request's rebase (GL merge_requests.rebase_jid and merge_error): the job rebasing its source branch while one
// runs, and why the last rebase (or merge) failed.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('merge_requests').addColumn('rebase_job_id', idType(db)).execute()
  await db.schema.alterTable('merge_requests').addColumn('merge_error', 'text').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.alterTable('merge_requests').dropColumn('merge_error').execute()
  await db.schema.alterTable('merge_requests').dropColumn('rebase_job_id').execute()
}
