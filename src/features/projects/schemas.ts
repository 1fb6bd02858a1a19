import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import { paginationParams } from '../../http/pagination.js'
import { UserBasicJson } from '../users/index.js'

// Request params (GL lib/api/projects.rb, lib/api/helpers/projects_helpers.rb, lib/api/groups.rb).

function oneOf<const T extends readonly (string | number)[]>(values: T, options: object = {}) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TSchema & { static: T[number] }
}

const NullableString = Nullable(Type.String())
/** Grape's CommaSeparatedToArray: `a,b` or `a[]=…`. */
const CommaSeparated = Type.Array(Type.String(), { commaSeparated: true })

export const VISIBILITIES = ['private', 'internal', 'public'] as const
export const MIN_ACCESS_LEVELS = [5, 10, 15, 20, 30, 40, 50] as const
export const STATISTICS_ORDERS = ['storage_size', 'repository_size', 'wiki_size', 'packages_size'] as const
export const PROJECT_ORDERS = [
  'id',
  'name',
  'path',
  'created_at',
  'updated_at',
  'last_activity_at',
  'similarity',
  'star_count',
  ...STATISTICS_ORDERS,
] as const
export const GROUP_PROJECT_ORDERS = [
  'id',
  'name',
  'path',
  'created_at',
  'updated_at',
  'last_activity_at',
  'similarity',
  'star_count',
] as const
export type ProjectOrder = (typeof PROJECT_ORDERS)[number]

/** The finder filters (GL `filter_params`); GitLab reads them from the raw params of group lists too. */
const filterParams = {
  archived: Type.Optional(Type.Boolean()),
  visibility: Type.Optional(oneOf(VISIBILITIES)),
  search: Type.Optional(Type.String()),
  search_namespaces: Type.Optional(Type.Boolean()),
  owned: Type.Boolean({ default: false }),
  starred: Type.Boolean({ default: false }),
  imported: Type.Boolean({ default: false }),
  membership: Type.Boolean({ default: false }),
  with_issues_enabled: Type.Boolean({ default: false }),
  with_merge_requests_enabled: Type.Boolean({ default: false }),
  with_programming_language: Type.Optional(Type.String()),
  min_access_level: Type.Optional(oneOf(MIN_ACCESS_LEVELS)),
  id_after: Type.Optional(Type.Integer()),
  id_before: Type.Optional(Type.Integer()),
  last_activity_after: Type.Optional(Type.String({ format: 'date-time' })),
  last_activity_before: Type.Optional(Type.String({ format: 'date-time' })),
  repository_storage: Type.Optional(Type.String()),
  topic: Type.Optional(CommaSeparated),
  topic_id: Type.Optional(Type.Integer()),
  updated_before: Type.Optional(Type.String({ format: 'date-time' })),
  updated_after: Type.Optional(Type.String({ format: 'date-time' })),
  include_pending_delete: Type.Optional(Type.Boolean()),
}

const collectionParams = {
  order_by: oneOf(PROJECT_ORDERS, { default: 'created_at' }),
  sort: oneOf(['asc', 'desc'] as const, { default: 'desc' }),
  ...filterParams,
  ...paginationParams,
  pagination: Type.Optional(Type.String()),
  simple: Type.Boolean({ default: false }),
  statistics: Type.Boolean({ default: false }),
  with_custom_attributes: Type.Boolean({ default: false }),
}

export const ListProjectsParams = Type.Object(collectionParams)
export type ListProjectsParams = Static<typeof ListProjectsParams>

export const ListUserProjectsParams = Type.Object({ user_id: Type.String(), ...collectionParams })
export type ListUserProjectsParams = Static<typeof ListUserProjectsParams>

export const ListGroupProjectsParams = Type.Object({
  id: Type.String(),
  ...filterParams,
  order_by: oneOf(GROUP_PROJECT_ORDERS, { default: 'created_at' }),
  sort: oneOf(['asc', 'desc'] as const, { default: 'desc' }),
  simple: Type.Boolean({ default: false }),
  with_shared: Type.Boolean({ default: true }),
  include_subgroups: Type.Boolean({ default: false }),
  include_ancestor_groups: Type.Boolean({ default: false }),
  ...paginationParams,
  with_custom_attributes: Type.Boolean({ default: false }),
})
export type ListGroupProjectsParams = Static<typeof ListGroupProjectsParams>

export const ProjectIdParams = Type.Object({ id: Type.String() })

export const ShowProjectParams = Type.Object({
  id: Type.String(),
  statistics: Type.Boolean({ default: false }),
  with_custom_attributes: Type.Boolean({ default: false }),
  license: Type.Boolean({ default: false }),
})
export type ShowProjectParams = Static<typeof ShowProjectParams>

const FEATURE_LEVELS = ['disabled', 'private', 'enabled'] as const
const featureLevel = () => Type.Optional(oneOf(FEATURE_LEVELS))

/** The feature access levels the API writes, in GitLab's order (GL `optional_project_params_ce`). */
export const FEATURE_LEVEL_PARAMS = [
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
] as const
export type FeatureLevelParam = (typeof FEATURE_LEVEL_PARAMS)[number]

/** Attributes POST and PUT share (GL `optional_project_params_ce`). */
const projectAttributes = {
  description: Type.Optional(NullableString),
  build_git_strategy: Type.Optional(oneOf(['fetch', 'clone'] as const)),
  build_timeout: Type.Optional(Type.Integer()),
  auto_cancel_pending_pipelines: Type.Optional(oneOf(['disabled', 'enabled'] as const)),
  ci_config_path: Type.Optional(NullableString),
  service_desk_enabled: Type.Optional(Type.Boolean()),
  issues_enabled: Type.Optional(Type.Boolean()),
  merge_requests_enabled: Type.Optional(Type.Boolean()),
  wiki_enabled: Type.Optional(Type.Boolean()),
  jobs_enabled: Type.Optional(Type.Boolean()),
  snippets_enabled: Type.Optional(Type.Boolean()),
  issues_access_level: featureLevel(),
  repository_access_level: featureLevel(),
  merge_requests_access_level: featureLevel(),
  forking_access_level: featureLevel(),
  wiki_access_level: featureLevel(),
  builds_access_level: featureLevel(),
  snippets_access_level: featureLevel(),
  pages_access_level: Type.Optional(oneOf(['disabled', 'private', 'enabled', 'public'] as const)),
  analytics_access_level: featureLevel(),
  container_registry_access_level: featureLevel(),
  security_and_compliance_access_level: featureLevel(),
  releases_access_level: featureLevel(),
  environments_access_level: featureLevel(),
  feature_flags_access_level: featureLevel(),
  infrastructure_access_level: featureLevel(),
  monitor_access_level: featureLevel(),
  model_experiments_access_level: featureLevel(),
  model_registry_access_level: featureLevel(),
  emails_disabled: Type.Optional(Type.Boolean()),
  emails_enabled: Type.Optional(Type.Boolean()),
  show_default_award_emojis: Type.Optional(Type.Boolean()),
  show_diff_preview_in_email: Type.Optional(Type.Boolean()),
  warn_about_potentially_unwanted_characters: Type.Optional(Type.Boolean()),
  enforce_auth_checks_on_uploads: Type.Optional(Type.Boolean()),
  shared_runners_enabled: Type.Optional(Type.Boolean()),
  group_runners_enabled: Type.Optional(Type.Boolean()),
  resolve_outdated_diff_discussions: Type.Optional(Type.Boolean()),
  remove_source_branch_after_merge: Type.Optional(Type.Boolean()),
  container_registry_enabled: Type.Optional(Type.Boolean()),
  lfs_enabled: Type.Optional(Type.Boolean()),
  visibility: Type.Optional(oneOf(VISIBILITIES)),
  public_builds: Type.Optional(Type.Boolean()),
  public_jobs: Type.Optional(Type.Boolean()),
  request_access_enabled: Type.Optional(Type.Boolean()),
  only_allow_merge_if_pipeline_succeeds: Type.Optional(Type.Boolean()),
  allow_merge_on_skipped_pipeline: Type.Optional(Type.Boolean()),
  only_allow_merge_if_all_discussions_are_resolved: Type.Optional(Type.Boolean()),
  tag_list: Type.Optional(CommaSeparated),
  topics: Type.Optional(CommaSeparated),
  printing_merge_request_link_enabled: Type.Optional(Type.Boolean()),
  merge_method: Type.Optional(oneOf(['ff', 'rebase_merge', 'merge'] as const)),
  suggestion_commit_message: Type.Optional(NullableString),
  merge_commit_template: Type.Optional(NullableString),
  squash_commit_template: Type.Optional(NullableString),
  issue_branch_template: Type.Optional(NullableString),
  auto_devops_enabled: Type.Optional(Type.Boolean()),
  auto_devops_deploy_strategy: Type.Optional(oneOf(['continuous', 'manual', 'timed_incremental'] as const)),
  autoclose_referenced_issues: Type.Optional(Type.Boolean()),
  repository_storage: Type.Optional(Type.String()),
  packages_enabled: Type.Optional(Type.Boolean()),
  squash_option: Type.Optional(oneOf(['never', 'always', 'default_on', 'default_off'] as const)),
  mr_default_target_self: Type.Optional(Type.Boolean()),
}

/** Create-only attributes (GL `optional_create_project_params_ce`, `create_params`). */
const createAttributes = {
  repository_object_format: Type.Optional(oneOf(['sha1', 'sha256'] as const)),
  initialize_with_readme: Type.Optional(Type.Boolean()),
  namespace_id: Type.Optional(Type.Integer()),
  import_url: Type.Optional(Type.String()),
  template_name: Type.Optional(Type.String()),
  template_project_id: Type.Optional(Type.Integer()),
}

export const CreateProjectParams = Type.Object({
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  default_branch: Type.Optional(Type.String()),
  ...projectAttributes,
  ...createAttributes,
})
export type CreateProjectParams = Static<typeof CreateProjectParams>

export const CreateUserProjectParams = Type.Object({
  name: Type.String(),
  user_id: Type.Integer(),
  path: Type.Optional(Type.String()),
  default_branch: Type.Optional(Type.String()),
  ...projectAttributes,
  ...createAttributes,
})
export type CreateUserProjectParams = Static<typeof CreateUserProjectParams>

export const UpdateProjectParams = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  default_branch: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  ...projectAttributes,
  ci_default_git_depth: Type.Optional(Type.Integer()),
  keep_latest_artifact: Type.Optional(Type.Boolean()),
  ci_forward_deployment_enabled: Type.Optional(Type.Boolean()),
  ci_forward_deployment_rollback_allowed: Type.Optional(Type.Boolean()),
  ci_allow_fork_pipelines_to_run_in_parent_project: Type.Optional(Type.Boolean()),
  ci_separated_caches: Type.Optional(Type.Boolean()),
  restrict_user_defined_variables: Type.Optional(Type.Boolean()),
  ci_pipeline_variables_minimum_override_role: Type.Optional(oneOf(['no_one_allowed', 'developer', 'maintainer', 'owner'] as const)),
  ci_push_repository_for_job_token_allowed: Type.Optional(Type.Boolean()),
  ci_id_token_sub_claim_components: Type.Optional(Type.Array(oneOf(['project_path', 'ref_type', 'ref'] as const))),
  ci_delete_pipelines_in_seconds: Type.Optional(Nullable(Type.Integer())),
  max_artifacts_size: Type.Optional(Nullable(Type.Integer())),
})
export type UpdateProjectParams = Static<typeof UpdateProjectParams>

/** PUT /projects/:id must change something (GL `update_params_at_least_one_of`, in GitLab's order). */
export const UPDATE_AT_LEAST_ONE_OF = [
  'allow_merge_on_skipped_pipeline',
  'analytics_access_level',
  'autoclose_referenced_issues',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'auto_cancel_pending_pipelines',
  'build_git_strategy',
  'build_timeout',
  'builds_access_level',
  'ci_config_path',
  'ci_default_git_depth',
  'ci_allow_fork_pipelines_to_run_in_parent_project',
  'ci_forward_deployment_enabled',
  'ci_forward_deployment_rollback_allowed',
  'ci_separated_caches',
  'container_registry_access_level',
  'container_expiration_policy_attributes',
  'default_branch',
  'description',
  'emails_disabled',
  'emails_enabled',
  'forking_access_level',
  'issues_access_level',
  'lfs_enabled',
  'merge_pipelines_enabled',
  'merge_requests_access_level',
  'merge_requests_template',
  'merge_trains_enabled',
  'merge_method',
  'name',
  'only_allow_merge_if_all_discussions_are_resolved',
  'only_allow_merge_if_pipeline_succeeds',
  'pages_access_level',
  'path',
  'printing_merge_request_link_enabled',
  'public_builds',
  'public_jobs',
  'remove_source_branch_after_merge',
  'repository_access_level',
  'request_access_enabled',
  'resolve_outdated_diff_discussions',
  'restrict_user_defined_variables',
  'show_diff_preview_in_email',
  'security_and_compliance_access_level',
  'squash_option',
  'shared_runners_enabled',
  'group_runners_enabled',
  'snippets_access_level',
  'tag_list',
  'topics',
  'visibility',
  'wiki_access_level',
  'avatar',
  'suggestion_commit_message',
  'merge_commit_template',
  'squash_commit_template',
  'issue_branch_template',
  'repository_storage',
  'packages_enabled',
  'service_desk_enabled',
  'keep_latest_artifact',
  'mr_default_target_self',
  'enforce_auth_checks_on_uploads',
  'releases_access_level',
  'environments_access_level',
  'feature_flags_access_level',
  'infrastructure_access_level',
  'monitor_access_level',
  'model_experiments_access_level',
  'model_registry_access_level',
  'warn_about_potentially_unwanted_characters',
  'ci_pipeline_variables_minimum_override_role',
  'ci_push_repository_for_job_token_allowed',
  'ci_delete_pipelines_in_seconds',
  'max_artifacts_size',
  'issues_enabled',
  'jobs_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'snippets_enabled',
  'container_registry_enabled',
] as const

export const TransferProjectParams = Type.Object({ id: Type.String(), namespace: Type.String() })

export const DeleteProjectParams = Type.Object({ id: Type.String() })

export const ProjectUsersParams = Type.Object({
  id: Type.String(),
  search: Type.Optional(Type.String()),
  skip_users: Type.Optional(Type.Array(Type.Integer(), { commaSeparated: true })),
  ...paginationParams,
})
export type ProjectUsersParams = Static<typeof ProjectUsersParams>

export const StarrersParams = Type.Object({
  id: Type.String(),
  search: Type.Optional(Type.String()),
  ...paginationParams,
})
export type StarrersParams = Static<typeof StarrersParams>

// Response entities (GL lib/api/entities/project_identity.rb, basic_project_details.rb, project_details.rb,
// project.rb, project_with_access.rb). Each entity's fields start with its parent's, so the widest schema serializes
// every narrower one field for field; absent fields are left out.

export const NamespaceBasicJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  kind: Type.String(),
  full_path: Type.String(),
  parent_id: Nullable(Type.Integer()),
  avatar_url: NullableString,
  web_url: Type.String(),
})
export type NamespaceBasicJson = Static<typeof NamespaceBasicJson>

const CustomAttributeJson = Type.Object({ key: Type.String(), value: Type.String() })

export const BasicProjectJson = Type.Object({
  id: Type.Integer(),
  description: NullableString,
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  created_at: Type.String(),
  default_branch: Type.Optional(Type.String()),
  tag_list: Type.Array(Type.String()),
  topics: Type.Array(Type.String()),
  ssh_url_to_repo: Type.String(),
  http_url_to_repo: Type.String(),
  web_url: Type.String(),
  readme_url: Type.Optional(NullableString),
  forks_count: Type.Optional(Type.Integer()),
  avatar_url: NullableString,
  star_count: Type.Integer(),
  last_activity_at: Type.String(),
  namespace: NamespaceBasicJson,
  custom_attributes: Type.Optional(Type.Array(CustomAttributeJson)),
  repository_storage: Type.Optional(Type.String()),
})
export type BasicProjectJson = Static<typeof BasicProjectJson>

export const ProjectDetailsJson = Type.Object({
  ...BasicProjectJson.properties,
  forked_from_project: Type.Optional(BasicProjectJson),
})

const LinksJson = Type.Object({
  self: Type.String(),
  issues: Type.Optional(Type.String()),
  merge_requests: Type.Optional(Type.String()),
  repo_branches: Type.String(),
  labels: Type.String(),
  events: Type.String(),
  members: Type.String(),
  cluster_agents: Type.String(),
})

const AccessJson = Nullable(Type.Object({ access_level: Type.Integer(), notification_level: Nullable(Type.Integer()) }))

export const StatisticsJson = Type.Object({
  commit_count: Type.Integer(),
  storage_size: Type.Integer(),
  repository_size: Type.Integer(),
  wiki_size: Type.Integer(),
  lfs_objects_size: Type.Integer(),
  job_artifacts_size: Type.Integer(),
  pipeline_artifacts_size: Type.Integer(),
  packages_size: Type.Integer(),
  snippets_size: Type.Integer(),
  uploads_size: Type.Integer(),
  container_registry_size: Type.Integer(),
})

const Text = Type.String()
const MaybeFlag = Type.Optional(Type.Boolean())

export const ProjectJson = Type.Object({
  ...ProjectDetailsJson.properties,
  container_registry_image_prefix: Type.Optional(Text),
  _links: Type.Optional(LinksJson),
  packages_enabled: MaybeFlag,
  empty_repo: MaybeFlag,
  archived: MaybeFlag,
  visibility: Type.Optional(Text),
  owner: Type.Optional(UserBasicJson),
  resolve_outdated_diff_discussions: MaybeFlag,
  repository_object_format: Type.Optional(Text),
  issues_enabled: MaybeFlag,
  merge_requests_enabled: MaybeFlag,
  wiki_enabled: MaybeFlag,
  jobs_enabled: MaybeFlag,
  snippets_enabled: MaybeFlag,
  container_registry_enabled: MaybeFlag,
  service_desk_enabled: MaybeFlag,
  service_desk_address: Type.Optional(NullableString),
  can_create_merge_request_in: MaybeFlag,
  ...Object.fromEntries(FEATURE_LEVEL_PARAMS.map((name) => [name, Type.Optional(Text)])),
  emails_disabled: MaybeFlag,
  emails_enabled: MaybeFlag,
  shared_runners_enabled: MaybeFlag,
  lfs_enabled: MaybeFlag,
  creator_id: Type.Optional(Nullable(Type.Integer())),
  mr_default_target_self: MaybeFlag,
  import_url: Type.Optional(NullableString),
  import_type: Type.Optional(NullableString),
  import_status: Type.Optional(Text),
  import_error: Type.Optional(NullableString),
  open_issues_count: Type.Optional(Type.Integer()),
  description_html: Type.Optional(Text),
  updated_at: Type.Optional(Text),
  ci_default_git_depth: Type.Optional(Type.Integer()),
  ci_delete_pipelines_in_seconds: Type.Optional(Nullable(Type.Integer())),
  ci_forward_deployment_enabled: MaybeFlag,
  ci_forward_deployment_rollback_allowed: MaybeFlag,
  ci_job_token_scope_enabled: MaybeFlag,
  ci_separated_caches: MaybeFlag,
  ci_allow_fork_pipelines_to_run_in_parent_project: MaybeFlag,
  ci_id_token_sub_claim_components: Type.Optional(Type.Array(Text)),
  build_git_strategy: Type.Optional(Text),
  keep_latest_artifact: MaybeFlag,
  restrict_user_defined_variables: MaybeFlag,
  ci_pipeline_variables_minimum_override_role: Type.Optional(Text),
  runners_token: Type.Optional(NullableString),
  runner_token_expiration_interval: Type.Optional(Nullable(Type.Integer())),
  group_runners_enabled: MaybeFlag,
  auto_cancel_pending_pipelines: Type.Optional(Text),
  build_timeout: Type.Optional(Type.Integer()),
  auto_devops_enabled: MaybeFlag,
  auto_devops_deploy_strategy: Type.Optional(Text),
  ci_push_repository_for_job_token_allowed: MaybeFlag,
  ci_config_path: Type.Optional(NullableString),
  public_jobs: MaybeFlag,
  shared_with_groups: Type.Optional(Type.Array(Type.Object({}))),
  only_allow_merge_if_pipeline_succeeds: MaybeFlag,
  allow_merge_on_skipped_pipeline: MaybeFlag,
  request_access_enabled: MaybeFlag,
  only_allow_merge_if_all_discussions_are_resolved: MaybeFlag,
  remove_source_branch_after_merge: MaybeFlag,
  printing_merge_request_link_enabled: MaybeFlag,
  merge_method: Type.Optional(Text),
  squash_option: Type.Optional(Text),
  enforce_auth_checks_on_uploads: MaybeFlag,
  suggestion_commit_message: Type.Optional(NullableString),
  merge_commit_template: Type.Optional(NullableString),
  squash_commit_template: Type.Optional(NullableString),
  issue_branch_template: Type.Optional(NullableString),
  statistics: Type.Optional(StatisticsJson),
  warn_about_potentially_unwanted_characters: MaybeFlag,
  autoclose_referenced_issues: MaybeFlag,
  max_artifacts_size: Type.Optional(Nullable(Type.Integer())),
  permissions: Type.Optional(Type.Object({ project_access: AccessJson, group_access: AccessJson })),
})

/** Every project shape (BasicProjectDetails … ProjectWithAccess) fits this one: fields are optional past the common ones. */
export type ProjectJson = Static<typeof ProjectDetailsJson> & Record<string, unknown>

export const ProjectResponse = ProjectJson
export const ProjectListResponse = Type.Array(ProjectJson)

export const UserStarsProjectJson = Type.Object({ starred_since: Type.String(), user: UserBasicJson })
export const StarrersResponse = Type.Array(UserStarsProjectJson)
export const ProjectUsersResponse = Type.Array(UserBasicJson)
