import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { flag } from './portable.js'

// Project settings the Projects API reads and writes beyond the first schema (GL projects, project_ci_cd_settings,
// project_settings columns), and indexes for the list orders and filters of GET /projects.

export async function up(db: Kysely<any>) {
  const columns: [string, 'integer' | 'text', (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder][] = [
    ['ci_delete_pipelines_in_seconds', 'integer', (c) => c],
    ['ci_forward_deployment_rollback_allowed', 'integer', flag(1)],
    ['ci_separated_caches', 'integer', flag(1)],
    ['ci_allow_fork_pipelines_to_run_in_parent_project', 'integer', flag(1)],
    ['ci_push_repository_for_job_token_allowed', 'integer', flag(0)],
    ['ci_pipeline_variables_minimum_override_role', 'text', (c) => c.notNull().defaultTo('developer')],
    // JSON array of claim names.
    ['ci_id_token_sub_claim_components', 'text', (c) => c.notNull().defaultTo('["project_path","ref_type","ref"]')],
    ['build_allow_git_fetch', 'integer', flag(1)],
    ['auto_cancel_pending_pipelines', 'text', (c) => c.notNull().defaultTo('enabled')],
    // Null: follow the instance (Auto DevOps on by default).
    ['auto_devops_enabled', 'integer', (c) => c],
    ['auto_devops_deploy_strategy', 'text', (c) => c.notNull().defaultTo('continuous')],
    ['max_artifacts_size', 'integer', (c) => c],
    ['show_diff_preview_in_email', 'integer', flag(1)],
  ]
  for (const [name, type, build] of columns) {
    await db.schema.alterTable('projects').addColumn(name, type, build).execute()
  }
  await db.schema.createIndex('projects_last_activity_at').on('projects').columns(['last_activity_at', 'id']).execute()
  await db.schema.createIndex('projects_updated_at').on('projects').columns(['updated_at', 'id']).execute()
  await db.schema.createIndex('projects_star_count').on('projects').columns(['star_count', 'id']).execute()
  await db.schema.createIndex('projects_name').on('projects').columns(['name', 'id']).execute()
  await db.schema.createIndex('projects_path').on('projects').columns(['path', 'id']).execute()
  await db.schema.createIndex('projects_creator_id').on('projects').column('creator_id').execute()
}

export async function down(db: Kysely<any>) {
  for (const index of [
    'projects_creator_id',
    'projects_path',
    'projects_name',
    'projects_star_count',
    'projects_updated_at',
    'projects_last_activity_at',
  ]) {
    await db.schema.dropIndex(index).execute()
  }
  for (const column of [
    'show_diff_preview_in_email',
    'max_artifacts_size',
    'auto_devops_deploy_strategy',
    'auto_devops_enabled',
    'auto_cancel_pending_pipelines',
    'build_allow_git_fetch',
    'ci_id_token_sub_claim_components',
    'ci_pipeline_variables_minimum_override_role',
    'ci_push_repository_for_job_token_allowed',
    'ci_allow_fork_pipelines_to_run_in_parent_project',
    'ci_separated_caches',
    'ci_forward_deployment_rollback_allowed',
    'ci_delete_pipelines_in_seconds',
  ]) {
    await db.schema.alterTable('projects').dropColumn(column).execute()
  }
}
