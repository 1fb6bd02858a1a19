import type { Kysely } from 'kysely'
import { flag, idType, timestampType, withId } from './portable.js'

// A user's explicit subscription to an issue or a merge request (GL subscriptions): subscribed, or unsubscribed even
// while participating. Each notification e-mail about an issue or a merge request is recorded under a reply key, the
// secret of its unsubscribe link (GL sent_notifications). Finding the setting that applies to each of many users reads
// a user's settings by source: an index led by the user serves it.

export async function up(db: Kysely<any>) {
  const id = idType(db)
  const timestamp = timestampType(db)
  await withId(db, db.schema.createTable('subscriptions'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('subscribable_type', 'text', (c) => c.notNull())
    .addColumn('subscribable_id', id, (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('subscribed', 'integer', flag(1))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('subscriptions_subscribable_user')
    .unique()
    .on('subscriptions')
    .columns(['subscribable_type', 'subscribable_id', 'user_id'])
    .execute()
  await db.schema.createIndex('subscriptions_user_id').on('subscriptions').column('user_id').execute()
  await db.schema.createIndex('subscriptions_project_id').on('subscriptions').column('project_id').execute()

  await db.schema
    .createIndex('notification_settings_user_type_source')
    .on('notification_settings')
    .columns(['user_id', 'source_type', 'source_id'])
    .execute()

  await withId(db, db.schema.createTable('sent_notifications'))
    .addColumn('reply_key', 'text', (c) => c.notNull().unique())
    .addColumn('recipient_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('noteable_type', 'text', (c) => c.notNull())
    .addColumn('noteable_id', id, (c) => c.notNull())
    .addColumn('in_reply_to_discussion_id', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sent_notifications_recipient_id').on('sent_notifications').column('recipient_id').execute()
  await db.schema.createIndex('sent_notifications_project_id').on('sent_notifications').column('project_id').execute()
}

export async function down(db: Kysely<any>) {
  await db.schema.dropIndex('notification_settings_user_type_source').execute()
  await db.schema.dropTable('sent_notifications').execute()
  await db.schema.dropTable('subscriptions').execute()
}
