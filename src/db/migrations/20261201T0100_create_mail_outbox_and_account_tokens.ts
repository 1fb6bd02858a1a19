import type { Kysely } from 'kysely'
import { idType, timestampType, withId } from './portable.js'

// E-mail waits in an outbox written in the transaction of the change that causes it; jobs send it and mark it sent.
// Account tokens are the digests of the links that reset a password or unlock an account (Devise's recoverable and
// lockable), one of each kind a user at most.

export async function up(db: Kysely<any>) {
  const timestamp = timestampType(db)
  await withId(db, db.schema.createTable('mail_outbox'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('to_user_id', idType(db), (c) => c.references('users.id').onDelete('set null'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('sent_at', timestamp)
    .execute()
  await db.schema.createIndex('mail_outbox_state_id').on('mail_outbox').columns(['state', 'id']).execute()
  await db.schema.createIndex('mail_outbox_to_user_id').on('mail_outbox').column('to_user_id').execute()

  await db.schema
    .createTable('account_tokens')
    .addColumn('user_id', idType(db), (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('account_tokens_pkey', ['user_id', 'purpose'])
    .execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('account_tokens').execute()
  await db.schema.dropTable('mail_outbox').execute()
}
