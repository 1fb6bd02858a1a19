import type { Kysely } from 'kysely'

// An administrator browsing as another user (GitLab's impersonation): the session is the user's, and names the
// administrator whose own session "Stop impersonating" gives back.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('sessions').addColumn('impersonator_id', 'integer').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.alterTable('sessions').dropColumn('impersonator_id').execute()
}
