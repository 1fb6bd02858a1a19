import { featureAccessLevel, type FeatureAccessName, type VisibilityName } from '../../core/access.js'
import type { ProjectUpdate } from '../../db/schema.js'
import { FEATURE_LEVEL_PARAMS, type CreateProjectParams, type UpdateProjectParams } from './schemas.js'

/** What a create or update asks for, after GitLab's compatibility translations (GL `translate_params_for_compatibility`). */
export interface ProjectInput {
  name?: string
  path?: string
  defaultBranch?: string
  description?: string | null
  visibility?: VisibilityName
  topics?: string[]
  repositoryStorage?: string
  /** Settings columns given, except the ones some roles may not change (listed below). */
  settings: ProjectUpdate
  /** Owner-only (GL `set_emails_disabled`). */
  emailsEnabled?: boolean
  /** Administrators only (GL `update_max_artifacts_size`). */
  maxArtifactsSize?: number | null
  /** Owner-only (GL `destroy_pipeline`). */
  ciDeletePipelinesInSeconds?: number | null
}

export interface CreateInput extends ProjectInput {
  namespaceId?: number
  initializeWithReadme?: boolean
  repositoryObjectFormat?: 'sha1' | 'sha256'
  importUrl?: string
  templateName?: string
  templateProjectId?: number
}

type Params = Partial<CreateProjectParams & UpdateProjectParams>

const FLAG_COLUMNS = [
  'service_desk_enabled',
  'show_default_award_emojis',
  'show_diff_preview_in_email',
  'warn_about_potentially_unwanted_characters',
  'enforce_auth_checks_on_uploads',
  'shared_runners_enabled',
  'group_runners_enabled',
  'resolve_outdated_diff_discussions',
  'remove_source_branch_after_merge',
  'lfs_enabled',
  'request_access_enabled',
  'only_allow_merge_if_pipeline_succeeds',
  'allow_merge_on_skipped_pipeline',
  'only_allow_merge_if_all_discussions_are_resolved',
  'printing_merge_request_link_enabled',
  'autoclose_referenced_issues',
  'packages_enabled',
  'mr_default_target_self',
  'keep_latest_artifact',
  'ci_forward_deployment_enabled',
  'ci_forward_deployment_rollback_allowed',
  'ci_allow_fork_pipelines_to_run_in_parent_project',
  'ci_separated_caches',
  'restrict_user_defined_variables',
  'ci_push_repository_for_job_token_allowed',
] as const

const TEXT_COLUMNS = [
  'ci_config_path',
  'suggestion_commit_message',
  'merge_commit_template',
  'squash_commit_template',
  'issue_branch_template',
  'merge_method',
  'squash_option',
  'auto_cancel_pending_pipelines',
  'auto_devops_deploy_strategy',
  'ci_pipeline_variables_minimum_override_role',
] as const

const INTEGER_COLUMNS = ['build_timeout', 'ci_default_git_depth'] as const

/** Deprecated booleans and the access level each sets: enabled or disabled (GL ProjectFeaturesCompatibility). */
const DEPRECATED_FEATURE_FLAGS = [
  ['issues_enabled', 'issues_access_level'],
  ['merge_requests_enabled', 'merge_requests_access_level'],
  ['wiki_enabled', 'wiki_access_level'],
  ['jobs_enabled', 'builds_access_level'],
  ['snippets_enabled', 'snippets_access_level'],
  ['container_registry_enabled', 'container_registry_access_level'],
] as const

/** Topics as GitLab keeps them: split at commas, trimmed, without blanks or case-insensitive repeats. */
export function normalizeTopics(values: readonly string[]): string[] {
  const seen = new Set<string>()
  const topics: string[] = []
  for (const value of values.flatMap((v) => v.split(','))) {
    const topic = value.trim()
    if (topic === '' || seen.has(topic.toLowerCase())) continue
    seen.add(topic.toLowerCase())
    topics.push(topic)
  }
  return topics
}

function projectInputOf(params: Params): ProjectInput {
  const settings: Record<string, unknown> = {}
  for (const column of FLAG_COLUMNS) if (params[column] !== undefined) settings[column] = params[column] ? 1 : 0
  for (const column of TEXT_COLUMNS) if (params[column] !== undefined) settings[column] = params[column]
  for (const column of INTEGER_COLUMNS) if (params[column] !== undefined) settings[column] = params[column]
  // An access level wins over the deprecated boolean of the same feature (GL Projects::CreateService).
  for (const [flagName, column] of DEPRECATED_FEATURE_FLAGS) {
    if (params[flagName] !== undefined) settings[column] = params[flagName] ? 20 : 0
  }
  for (const column of FEATURE_LEVEL_PARAMS) {
    const level = params[column] as FeatureAccessName | undefined
    if (level !== undefined) settings[column] = featureAccessLevel(level)
  }
  if (params.public_builds !== undefined) settings.public_jobs = params.public_builds ? 1 : 0
  if (params.public_jobs !== undefined) settings.public_jobs = params.public_jobs ? 1 : 0
  if (params.build_git_strategy !== undefined) settings.build_allow_git_fetch = params.build_git_strategy === 'fetch' ? 1 : 0
  if (params.auto_devops_enabled !== undefined) settings.auto_devops_enabled = params.auto_devops_enabled ? 1 : 0
  if (params.ci_id_token_sub_claim_components !== undefined) {
    settings.ci_id_token_sub_claim_components = JSON.stringify(params.ci_id_token_sub_claim_components)
  }
  let emailsEnabled = params.emails_enabled
  if (params.emails_disabled !== undefined) emailsEnabled = !params.emails_disabled
  const topics = params.topics ?? params.tag_list
  return {
    name: params.name,
    path: params.path,
    defaultBranch: params.default_branch,
    description: params.description,
    visibility: params.visibility as VisibilityName | undefined,
    topics: topics === undefined ? undefined : normalizeTopics(topics),
    repositoryStorage: params.repository_storage,
    settings: settings as ProjectUpdate,
    emailsEnabled,
    maxArtifactsSize: params.max_artifacts_size,
    ciDeletePipelinesInSeconds: params.ci_delete_pipelines_in_seconds,
  }
}

export function createInputOf(params: CreateProjectParams): CreateInput {
  return {
    ...projectInputOf(params),
    namespaceId: params.namespace_id,
    initializeWithReadme: params.initialize_with_readme,
    repositoryObjectFormat: params.repository_object_format as CreateInput['repositoryObjectFormat'],
    importUrl: params.import_url,
    templateName: params.template_name,
    templateProjectId: params.template_project_id,
  }
}

export function updateInputOf(params: UpdateProjectParams): ProjectInput {
  return projectInputOf(params)
}
