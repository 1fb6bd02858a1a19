import { sql, type Kysely } from 'kysely'
import { createLowerUniqueIndex, dateType, flag, idType, timestampType, withId } from './portable.js'

/** Feature access levels of a project (GitLab ProjectFeature): disabled 0, private 10, enabled 20, public 30. */
const FEATURES = [
  'issues',
  'repository',
  'merge_requests',
  'forking',
  'wiki',
  'builds',
  'snippets',
  'pages',
  'operations',
  'analytics',
  'container_registry',
  'security_and_compliance',
  'releases',
  'environments',
  'feature_flags',
  'infrastructure',
  'monitor',
  'model_experiments',
  'model_registry',
  'requirements',
]

export async function up(db: Kysely<any>) {
  const ts = timestampType(db)
  const id = idType(db)

  // Users' personal namespaces and groups share one table and one path space, as in GitLab.
  await withId(db, db.schema.createTable('namespaces'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('owner_id', id, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('parent_id', id, (c) => c.references('namespaces.id').onDelete('cascade'))
    // Ids from the root down to this namespace, '/'-separated and ending with '/': '4/9/12/'.
    .addColumn('traversal_ids', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility_level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('request_access_enabled', 'integer', flag(1))
    .addColumn('share_with_group_lock', 'integer', flag(0))
    .addColumn('require_two_factor_authentication', 'integer', flag(0))
    .addColumn('two_factor_grace_period', 'integer', (c) => c.notNull().defaultTo(48))
    .addColumn('project_creation_level', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('subgroup_creation_level', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('emails_enabled', 'integer', flag(1))
    .addColumn('mentions_disabled', 'integer', flag(0))
    .addColumn('lfs_enabled', 'integer', flag(1))
    .addColumn('default_branch', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await createLowerUniqueIndex(db, 'namespaces_full_path_lower', 'namespaces', 'full_path')
  await db.schema.createIndex('namespaces_traversal_ids').on('namespaces').column('traversal_ids').execute()
  await db.schema.createIndex('namespaces_parent_id').on('namespaces').column('parent_id').execute()
  await db.schema.createIndex('namespaces_owner_id').on('namespaces').column('owner_id').execute()
  await db.schema.createIndex('namespaces_kind_name').on('namespaces').columns(['kind', 'name', 'id']).execute()

  let projects = withId(db, db.schema.createTable('projects'))
    .addColumn('namespace_id', id, (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('visibility_level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('creator_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('default_branch', 'text')
    .addColumn('empty_repo', 'integer', flag(1))
    .addColumn('archived', 'integer', flag(0))
    .addColumn('star_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('forked_from_project_id', id, (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('repository_storage', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('repository_object_format', 'text', (c) => c.notNull().defaultTo('sha1'))
    .addColumn('import_status', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('import_error', 'text')
    // JSON array of topic names.
    .addColumn('topics', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('merge_method', 'text', (c) => c.notNull().defaultTo('merge'))
    .addColumn('squash_option', 'text', (c) => c.notNull().defaultTo('default_off'))
    .addColumn('suggestion_commit_message', 'text')
    .addColumn('merge_commit_template', 'text')
    .addColumn('squash_commit_template', 'text')
    .addColumn('issue_branch_template', 'text')
    .addColumn('ci_config_path', 'text')
    .addColumn('build_timeout', 'integer', (c) => c.notNull().defaultTo(3600))
    .addColumn('ci_default_git_depth', 'integer', (c) => c.notNull().defaultTo(20))
    .addColumn('resolve_outdated_diff_discussions', 'integer', flag(0))
    .addColumn('shared_runners_enabled', 'integer', flag(1))
    .addColumn('group_runners_enabled', 'integer', flag(1))
    .addColumn('public_jobs', 'integer', flag(1))
    .addColumn('only_allow_merge_if_pipeline_succeeds', 'integer', flag(0))
    .addColumn('allow_merge_on_skipped_pipeline', 'integer', flag(0))
    .addColumn('restrict_user_defined_variables', 'integer', flag(0))
    .addColumn('only_allow_merge_if_all_discussions_are_resolved', 'integer', flag(0))
    .addColumn('remove_source_branch_after_merge', 'integer', flag(1))
    .addColumn('printing_merge_request_link_enabled', 'integer', flag(1))
    .addColumn('request_access_enabled', 'integer', flag(1))
    .addColumn('autoclose_referenced_issues', 'integer', flag(1))
    .addColumn('enforce_auth_checks_on_uploads', 'integer', flag(1))
    .addColumn('lfs_enabled', 'integer', flag(1))
    .addColumn('emails_enabled', 'integer', flag(1))
    .addColumn('packages_enabled', 'integer', flag(1))
    .addColumn('service_desk_enabled', 'integer', flag(0))
    .addColumn('mr_default_target_self', 'integer', flag(0))
    .addColumn('show_default_award_emojis', 'integer', flag(1))
    .addColumn('warn_about_potentially_unwanted_characters', 'integer', flag(1))
    .addColumn('ci_forward_deployment_enabled', 'integer', flag(1))
    .addColumn('keep_latest_artifact', 'integer', flag(1))
  for (const feature of FEATURES) {
    // Everything enabled except pages' and the registry's own defaults (GitLab ProjectFeature).
    const level = feature === 'pages' ? 10 : 20
    projects = projects.addColumn(`${feature}_access_level`, 'integer', (c) => c.notNull().defaultTo(level))
  }
  await projects
    .addColumn('last_activity_at', ts, (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await createLowerUniqueIndex(db, 'projects_full_path_lower', 'projects', 'full_path')
  await db.schema.createIndex('projects_namespace_id').on('projects').columns(['namespace_id', 'id']).execute()
  await db.schema.createIndex('projects_visibility_level').on('projects').columns(['visibility_level', 'id']).execute()
  await db.schema.createIndex('projects_forked_from').on('projects').column('forked_from_project_id').execute()
  await db.schema.createIndex('projects_repository_storage').on('projects').columns(['repository_storage', 'id']).execute()

  // Old full paths of renamed or transferred projects and namespaces, answered with 301 (spec rule 6).
  await withId(db, db.schema.createTable('redirect_routes'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('project_id', id, (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('namespace_id', id, (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute()
  await createLowerUniqueIndex(db, 'redirect_routes_path_lower', 'redirect_routes', 'path')

  // One row per direct membership of a user in a group (namespace_id) or a project (project_id).
  await withId(db, db.schema.createTable('members'))
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('namespace_id', id, (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addColumn('expires_at', dateType(db))
    .addColumn('created_by_id', id, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('members_namespace_user').unique().on('members').columns(['namespace_id', 'user_id']).execute()
  await db.schema.createIndex('members_project_user').unique().on('members').columns(['project_id', 'user_id']).execute()
  await db.schema.createIndex('members_user_id').on('members').column('user_id').execute()

  await db.schema
    .createTable('project_stars')
    .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', id, (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('project_stars_pkey', ['user_id', 'project_id'])
    .execute()
  await db.schema.createIndex('project_stars_project_id').on('project_stars').column('project_id').execute()

  // Every existing user gets the personal namespace new users are created with.
  await sql`
    insert into namespaces (kind, name, path, full_path, full_name, owner_id, visibility_level, created_at, updated_at)
    select 'user', name, username, username, name, id, 20, created_at, created_at from users order by id`.execute(db)
  await sql`update namespaces set traversal_ids = cast(id as text) || '/'`.execute(db)
}

export async function down(db: Kysely<any>) {
  await db.schema.dropTable('project_stars').execute()
  await db.schema.dropTable('members').execute()
  await db.schema.dropTable('redirect_routes').execute()
  await db.schema.dropTable('projects').execute()
  await db.schema.dropTable('namespaces').execute()
}
