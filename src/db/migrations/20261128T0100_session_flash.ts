import type { Kysely } from 'kysely'

// The message a page leaves for the next one the visitor sees (Rails' flash): JSON `{"kind","text"}`, shown once.

export async function up(db: Kysely<any>) {
  await db.schema.alterTable('sessions').addColumn('flash', 'text').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.alterTable('sessions').dropColumn('flash').execute()
}
