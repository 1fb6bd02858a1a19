import { createHash } from 'node:crypto'

/** The field order of the project entities, as GitLab's Grape entities declare them; read by this feature's tests. */

export const IDENTITY_KEYS = ['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at']

export const FEATURE_LEVEL_KEYS = [
  'issues_access_level',
  'repository_access_level',
  'merge_requests_access_level',
  'forking_access_level',
  'wiki_access_level',
  'builds_access_level',
  'snippets_access_level',
  'pages_access_level',
  'analytics_access_level',
  'container_registry_access_level',
  'security_and_compliance_access_level',
  'releases_access_level',
  'environments_access_level',
  'feature_flags_access_level',
  'infrastructure_access_level',
  'monitor_access_level',
  'model_experiments_access_level',
  'model_registry_access_level',
]

const ADMIN_PROJECT_KEYS = [
  'ci_default_git_depth',
  'ci_delete_pipelines_in_seconds',
  'ci_forward_deployment_enabled',
  'ci_forward_deployment_rollback_allowed',
  'ci_job_token_scope_enabled',
  'ci_separated_caches',
  'ci_allow_fork_pipelines_to_run_in_parent_project',
  'ci_id_token_sub_claim_components',
  'build_git_strategy',
  'keep_latest_artifact',
  'restrict_user_defined_variables',
  'ci_pipeline_variables_minimum_override_role',
  'runners_token',
  'runner_token_expiration_interval',
  'group_runners_enabled',
  'auto_cancel_pending_pipelines',
  'build_timeout',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'ci_push_repository_for_job_token_allowed',
]

export interface KeyOptions {
  /** The caller may read the code (any role on a public project; Reporter and up on a private one). */
  readCode?: boolean
  /** The project is in a personal namespace, so the entity names its owner. */
  personal?: boolean
  /** Maintainer and up (admin_project). */
  maintainer?: boolean
  /** Reporter and up (service desk address). */
  reporter?: boolean
  instanceAdmin?: boolean
  fork?: boolean
  forkedFromVisible?: boolean
  statistics?: boolean
  customAttributes?: boolean
  issues?: boolean
  mergeRequests?: boolean
  permissions?: boolean
}

export function basicKeys(o: KeyOptions = {}): string[] {
  const readCode = o.readCode ?? true
  return [
    ...IDENTITY_KEYS,
    ...(readCode ? ['default_branch'] : []),
    'tag_list',
    'topics',
    'ssh_url_to_repo',
    'http_url_to_repo',
    'web_url',
    ...(readCode ? ['readme_url', 'forks_count'] : []),
    'avatar_url',
    'star_count',
    'last_activity_at',
    'namespace',
    ...(o.customAttributes ? ['custom_attributes'] : []),
    ...(o.instanceAdmin ? ['repository_storage'] : []),
  ]
}

export function detailsKeys(o: KeyOptions = {}): string[] {
  return [...basicKeys(o), ...(o.forkedFromVisible ? ['forked_from_project'] : [])]
}

export function projectKeys(o: KeyOptions = {}): string[] {
  const readCode = o.readCode ?? true
  const maintainer = o.maintainer ?? false
  const reporter = o.reporter ?? maintainer
  const issues = o.issues ?? true
  return [
    ...detailsKeys(o),
    'container_registry_image_prefix',
    '_links',
    'packages_enabled',
    'empty_repo',
    'archived',
    'visibility',
    ...(o.personal ? ['owner'] : []),
    'resolve_outdated_diff_discussions',
    'repository_object_format',
    'issues_enabled',
    'merge_requests_enabled',
    'wiki_enabled',
    'jobs_enabled',
    'snippets_enabled',
    'container_registry_enabled',
    'service_desk_enabled',
    ...(reporter ? ['service_desk_address'] : []),
    'can_create_merge_request_in',
    ...FEATURE_LEVEL_KEYS,
    'emails_disabled',
    'emails_enabled',
    'shared_runners_enabled',
    'lfs_enabled',
    'creator_id',
    ...(o.fork ? ['mr_default_target_self'] : []),
    ...(maintainer ? ['import_url', 'import_type'] : []),
    'import_status',
    ...(maintainer ? ['import_error'] : []),
    ...(issues ? ['open_issues_count'] : []),
    'description_html',
    'updated_at',
    ...(maintainer ? ADMIN_PROJECT_KEYS : []),
    ...(readCode ? ['ci_config_path'] : []),
    'public_jobs',
    'shared_with_groups',
    'only_allow_merge_if_pipeline_succeeds',
    'allow_merge_on_skipped_pipeline',
    'request_access_enabled',
    'only_allow_merge_if_all_discussions_are_resolved',
    'remove_source_branch_after_merge',
    'printing_merge_request_link_enabled',
    'merge_method',
    'squash_option',
    'enforce_auth_checks_on_uploads',
    'suggestion_commit_message',
    'merge_commit_template',
    'squash_commit_template',
    'issue_branch_template',
    ...(o.statistics ? ['statistics'] : []),
    'warn_about_potentially_unwanted_characters',
    'autoclose_referenced_issues',
    'max_artifacts_size',
    ...(o.permissions ? ['permissions'] : []),
  ]
}

export const NAMESPACE_KEYS = ['id', 'name', 'path', 'kind', 'full_path', 'parent_id', 'avatar_url', 'web_url']

/** Gravatar identicon URL for an e-mail, computed independently of the presenter. */
export function gravatarOf(email: string): string {
  return `https://www.gravatar.com/avatar/${createHash('md5').update(email.toLowerCase()).digest('hex')}?s=80&d=identicon`
}
