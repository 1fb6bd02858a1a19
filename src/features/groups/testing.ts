import type { Db } from '../../db/index.js'

/** The field order of the group entities, as GitLab's Grape entities declare them; read by this feature's tests. */
export const GROUP_KEYS = [
  'id',
  'web_url',
  'name',
  'path',
  'description',
  'visibility',
  'share_with_group_lock',
  'require_two_factor_authentication',
  'two_factor_grace_period',
  'project_creation_level',
  'auto_devops_enabled',
  'subgroup_creation_level',
  'emails_disabled',
  'emails_enabled',
  'show_diff_preview_in_email',
  'mentions_disabled',
  'lfs_enabled',
  'archived',
  'math_rendering_limits_enabled',
  'lock_math_rendering_limits_enabled',
  'default_branch',
  'default_branch_protection',
  'default_branch_protection_defaults',
  'avatar_url',
  'request_access_enabled',
  'full_name',
  'full_path',
  'created_at',
  'parent_id',
  'organization_id',
  'shared_runners_setting',
  'max_artifacts_size',
  'marked_for_deletion_on',
]

/** GroupDetail of a top-level group for a caller who may not administer it, without projects. */
export const GROUP_DETAIL_KEYS = [...GROUP_KEYS, 'shared_with_groups', 'prevent_sharing_groups_outside_hierarchy']

export const STATISTICS_KEYS = [
  'storage_size',
  'repository_size',
  'wiki_size',
  'lfs_objects_size',
  'job_artifacts_size',
  'pipeline_artifacts_size',
  'packages_size',
  'snippets_size',
  'uploads_size',
]

/** How many rows each table a group write touches holds: refused requests must leave them all unchanged. */
export async function countRows(db: Db) {
  const count = async (table: 'namespaces' | 'projects' | 'members' | 'redirect_routes') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  return {
    namespaces: await count('namespaces'),
    projects: await count('projects'),
    members: await count('members'),
    redirects: await count('redirect_routes'),
  }
}

/** A group row as stored, for checks that a write changed nothing or moved everything below. */
export function findNamespaceRow(db: Db, id: number) {
  return db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findProjectRow(db: Db, id: number) {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findRedirectPaths(db: Db) {
  return db
    .selectFrom('redirect_routes')
    .select(['path', 'namespace_id', 'project_id'])
    .orderBy('path')
    .execute()
    .then((rows) => rows.map((r) => r.path))
}
