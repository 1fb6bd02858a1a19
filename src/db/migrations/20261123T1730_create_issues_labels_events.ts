import { sql, type Kysely } from 'kysely'
import { dateType, flag, idType, timestampType, withId } from './portable.js'

// The work labels organise: milestones, issues, merge requests and their notes; labels with their priorities
// and subscriptions; contribution events; notification settings; spam logs; per-project iid counters.

export async function up(db: Kysely<any>) {
  const id = idType(db)
  const ts = timestampType(db)
  const date = dateType(db)

  // The last iid handed out per project and kind ('issues', 'merge_requests', 'milestones', …): bumping
  // the row locks it, so concurrent creations get consecutive iids and a rolled-back one leaves no gap.
  await db.schema
    .createTable('internal_ids')
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('last_value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('internal_ids_pkey', ['project_id', 'usage'])
    .execute()

  await withId(db, db.schema.createTable('milestones'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // 'active' or 'closed'
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('start_date', date)
    .addColumn('due_date', date)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('milestones_project_iid').on('milestones').columns(['project_id', 'iid']).unique().execute()
  await db.schema.createIndex('milestones_project_title').on('milestones').columns(['project_id', 'title']).execute()

  await withId(db, db.schema.createTable('issues'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('author_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // 'opened' or 'closed'
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened'))
    // 'issue' or 'incident'
    .addColumn('issue_type', 'text', (c) => c.notNull().defaultTo('issue'))
    .addColumn('confidential', 'integer', flag(0))
    .addColumn('discussion_locked', 'integer', flag(0))
    .addColumn('due_date', date)
    .addColumn('weight', 'integer')
    .addColumn('relative_position', 'integer')
    .addColumn('milestone_id', id, (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('closed_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('closed_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('issues_project_iid').on('issues').columns(['project_id', 'iid']).unique().execute()
  // One index per keyset order of project issues, so every page is an index range.
  for (const column of ['created_at', 'updated_at', 'title', 'due_date', 'relative_position', 'weight']) {
    await db.schema.createIndex(`issues_project_${column}`).on('issues').columns(['project_id', column, 'id']).execute()
  }
  await db.schema.createIndex('issues_author_id').on('issues').column('author_id').execute()
  await db.schema.createIndex('issues_milestone_id').on('issues').column('milestone_id').execute()

  await db.schema
    .createTable('issue_assignees')
    .addColumn('issue_id', id, (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('issue_assignees_pkey', ['issue_id', 'user_id'])
    .execute()
  await db.schema.createIndex('issue_assignees_user_id').on('issue_assignees').column('user_id').execute()

  await withId(db, db.schema.createTable('merge_requests'))
    // The target project: a merge request belongs to the project it merges into.
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('source_project_id', id, (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('author_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // 'opened', 'closed', 'merged' or 'locked'
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened'))
    .addColumn('source_branch', 'text', (c) => c.notNull())
    .addColumn('target_branch', 'text', (c) => c.notNull())
    .addColumn('draft', 'integer', flag(0))
    .addColumn('discussion_locked', 'integer', flag(0))
    .addColumn('squash', 'integer', flag(0))
    .addColumn('remove_source_branch', 'integer', flag(0))
    .addColumn('milestone_id', id, (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('merge_commit_sha', 'text')
    .addColumn('merged_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('closed_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('merged_at', ts)
    .addColumn('closed_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('merge_requests_project_iid').on('merge_requests').columns(['project_id', 'iid']).unique().execute()
  await db.schema
    .createIndex('merge_requests_project_created_at')
    .on('merge_requests')
    .columns(['project_id', 'created_at', 'id'])
    .execute()
  await db.schema.createIndex('merge_requests_author_id').on('merge_requests').column('author_id').execute()
  await db.schema.createIndex('merge_requests_source_project_id').on('merge_requests').column('source_project_id').execute()

  await db.schema
    .createTable('merge_request_assignees')
    .addColumn('merge_request_id', id, (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('merge_request_assignees_pkey', ['merge_request_id', 'user_id'])
    .execute()
  await db.schema.createIndex('merge_request_assignees_user_id').on('merge_request_assignees').column('user_id').execute()

  // A project label has project_id, a group label group_id; promotion turns one into the other in place.
  await withId(db, db.schema.createTable('labels'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('project_id', id, (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', id, (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('labels_project_title').on('labels').columns(['project_id', 'title']).unique().execute()
  await db.schema.createIndex('labels_group_title').on('labels').columns(['group_id', 'title']).unique().execute()

  await db.schema
    .createTable('issue_labels')
    .addColumn('issue_id', id, (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('label_id', id, (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('issue_labels_pkey', ['issue_id', 'label_id'])
    .execute()
  await db.schema.createIndex('issue_labels_label_id').on('issue_labels').columns(['label_id', 'issue_id']).execute()

  await db.schema
    .createTable('merge_request_labels')
    .addColumn('merge_request_id', id, (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('label_id', id, (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('merge_request_labels_pkey', ['merge_request_id', 'label_id'])
    .execute()
  await db.schema
    .createIndex('merge_request_labels_label_id')
    .on('merge_request_labels')
    .columns(['label_id', 'merge_request_id'])
    .execute()

  // A label's priority is per project, group labels included.
  await db.schema
    .createTable('label_priorities')
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('label_id', id, (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('label_priorities_pkey', ['project_id', 'label_id'])
    .execute()
  await db.schema.createIndex('label_priorities_label_id').on('label_priorities').column('label_id').execute()

  // A subscription to a label, for one project (project_id) or for the label's whole group (null).
  await withId(db, db.schema.createTable('label_subscriptions'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('label_id', id, (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('label_subscriptions_label_user').on('label_subscriptions').columns(['label_id', 'user_id']).execute()

  // A note belongs to exactly one of an issue or a merge request.
  await withId(db, db.schema.createTable('notes'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('issue_id', id, (c) => c.references('issues.id').onDelete('cascade'))
    .addColumn('merge_request_id', id, (c) => c.references('merge_requests.id').onDelete('cascade'))
    .addColumn('author_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('system', 'integer', flag(0))
    .addColumn('internal', 'integer', flag(0))
    .addColumn('updated_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('notes_issue_id').on('notes').columns(['issue_id', 'id']).execute()
  await db.schema.createIndex('notes_merge_request_id').on('notes').columns(['merge_request_id', 'id']).execute()

  // Contribution events. Targets are named by type and id, not by foreign key: an event outlives its target.
  await withId(db, db.schema.createTable('events'))
    .addColumn('project_id', id, (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('author_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    // GitLab's numbers: created 1, updated 2, closed 3, reopened 4, pushed 5, commented 6, merged 7, joined 8, left 9, …
    .addColumn('action', 'integer', (c) => c.notNull())
    // The class name as the API shows it: 'Issue', 'MergeRequest', 'Note', 'Milestone', … or null.
    .addColumn('target_type', 'text')
    .addColumn('target_id', id)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('events_project_id').on('events').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('events_author_id').on('events').columns(['author_id', 'id']).execute()
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute()
  await db.schema.createIndex('events_target').on('events').columns(['target_type', 'target_id']).execute()

  // Global settings have no source; group and project settings name theirs ('Namespace' or 'Project').
  await withId(db, db.schema.createTable('notification_settings'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('source_type', 'text')
    .addColumn('source_id', id)
    .addColumn('level', 'integer', (c) => c.notNull())
    // JSON object of event name → boolean; an event never set is absent (null in responses).
    .addColumn('events', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await sql`create unique index notification_settings_user_source on notification_settings (user_id, coalesce(source_type, ''), coalesce(source_id, 0))`.execute(
    db,
  )
  await db.schema.createIndex('notification_settings_source').on('notification_settings').columns(['source_type', 'source_id']).execute()

  // GitLab keeps the notification e-mail on the user; null means the primary e-mail.
  await db.schema.alterTable('users').addColumn('notification_email', 'text').execute()

  // Writes refused (or let through after a CAPTCHA) as spam; a retry names its log by id.
  await withId(db, db.schema.createTable('spam_logs'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('noteable_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('source_ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('recaptcha_verified', 'integer', flag(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('spam_logs_user_id').on('spam_logs').column('user_id').execute()
}

export async function down(db: Kysely<any>) {
  for (const table of [
    'spam_logs',
    'notification_settings',
    'events',
    'notes',
    'label_subscriptions',
    'label_priorities',
    'merge_request_labels',
    'issue_labels',
    'labels',
    'merge_request_assignees',
    'merge_requests',
    'issue_assignees',
    'issues',
    'milestones',
    'internal_ids',
  ]) {
    await db.schema.dropTable(table).execute()
  }
  await db.schema.alterTable('users').dropColumn('notification_email').execute()
}
