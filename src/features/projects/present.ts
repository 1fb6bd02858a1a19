import { featureAccessName, visibilityName } from '../../core/access.js'
import type { Caller, User } from '../../core/caller.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import type { ProjectAccess } from '../access/index.js'
import type { RenderedMarkdown } from '../markdown/index.js'
import { presentUserBasic } from '../users/index.js'
import { type BasicProjectJson, type NamespaceBasicJson, type ProjectJson } from './schemas.js'
import {
  canAdminIssues,
  canAdminProject,
  canChangeRepositoryStorage,
  canCreateMergeRequestIn,
  canReadCode,
  canReadStatistics,
  isFeatureAvailable,
} from '../access/index.js'
import { presentProjectIdentity } from '../../core/project-identity.js'

/** GitLab's default branch name for repositories without one (Gitlab::DefaultBranch). */
export const DEFAULT_BRANCH = 'main'

/** Everything a project entity shows besides the row, loaded for a whole page at once. */
export interface ProjectView {
  project: ProjectRow
  namespace: NamespaceRow
  access: ProjectAccess
  /** The owner of a personal namespace; null for groups. */
  owner: User | null
  forksCount: number
  /** The source of a fork, when the caller may read it. */
  forkedFrom: ProjectView | null
  /** The description as GitLab Flavored Markdown for the caller (GL `markdown_field(project, :description)`). */
  description: RenderedMarkdown
}

/** The caller's own memberships, shown as `permissions` (GL ProjectWithAccess). */
export interface Permissions {
  projectLevel: number | null
  groupLevel: number | null
}

export interface ProjectPresentOptions {
  viewer: Caller
  externalUrl: string
  now: Date
  /** `statistics=true` was asked for. */
  statistics: boolean
  /** `with_custom_attributes=true` was asked for by an administrator. */
  withCustomAttributes: boolean
}

/** Every member's notification level starts as `global` (GL NotificationSetting.levels). */
const GLOBAL_NOTIFICATION_LEVEL = 3

const urls = new Map<string, URL>()

/** The instance URL, parsed once. */
function instanceUrl(externalUrl: string): URL {
  let url = urls.get(externalUrl)
  if (!url) {
    url = new URL(externalUrl)
    urls.set(externalUrl, url)
  }
  return url
}

function flag(value: number): boolean {
  return value === 1
}

export function topicsOf(project: ProjectRow): string[] {
  const topics = JSON.parse(project.topics) as string[]
  return [...topics].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

export function webUrlOf(project: Pick<ProjectRow, 'full_path'>, externalUrl: string): string {
  return `${externalUrl}/${project.full_path}`
}

/** The branch GitLab shows as default: the repository's, else the instance default. */
export function defaultBranchOf(project: ProjectRow): string {
  return project.default_branch ?? DEFAULT_BRANCH
}

/** Entities::NamespaceBasic; a personal namespace shows its owner's avatar and profile URL. */
export function presentNamespaceBasic(namespace: NamespaceRow, owner: User | null, options: ProjectPresentOptions): NamespaceBasicJson {
  const personal = namespace.kind === 'user'
  const ownerJson = personal && owner ? presentUserBasic(owner, options) : null
  return {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.kind,
    full_path: namespace.full_path,
    parent_id: namespace.parent_id,
    avatar_url: ownerJson ? ownerJson.avatar_url : null,
    web_url: personal
      ? `${options.externalUrl}/${owner ? owner.username : namespace.path}`
      : `${options.externalUrl}/groups/${namespace.full_path}`,
  }
}

/** Entities::BasicProjectDetails (ProjectIdentity first). */
export function presentBasicProject(view: ProjectView, options: ProjectPresentOptions): BasicProjectJson {
  const { project, access } = view
  const readCode = canReadCode(access, project)
  const topics = topicsOf(project)
  const webUrl = webUrlOf(project, options.externalUrl)
  const json = presentProjectIdentity(project) as BasicProjectJson
  if (readCode) json.default_branch = defaultBranchOf(project)
  json.tag_list = topics
  json.topics = [...topics]
  json.ssh_url_to_repo = `git@${instanceUrl(options.externalUrl).hostname}:${project.full_path}.git`
  json.http_url_to_repo = `${webUrl}.git`
  json.web_url = webUrl
  if (readCode) {
    // The README recorded on the row when the repository last changed (GL `project.readme_url`).
    json.readme_url = project.readme_path === null ? null : `${webUrl}/-/blob/${defaultBranchOf(project)}/${project.readme_path}`
    json.forks_count = view.forksCount
  }
  json.avatar_url = null
  json.star_count = project.star_count
  json.last_activity_at = project.last_activity_at
  json.namespace = presentNamespaceBasic(view.namespace, view.owner, options)
  if (options.withCustomAttributes) json.custom_attributes = []
  if (canChangeRepositoryStorage(options.viewer)) json.repository_storage = project.repository_storage
  return json
}

/** Entities::ProjectDetails: the basic fields and the source of a fork. */
export function presentProjectDetails(view: ProjectView, options: ProjectPresentOptions): ProjectJson {
  const json = presentBasicProject(view, options) as ProjectJson
  if (view.forkedFrom) json.forked_from_project = presentBasicProject(view.forkedFrom, { ...options, withCustomAttributes: false })
  return json
}

/** Entities::Project. */
export function presentProject(view: ProjectView, options: ProjectPresentOptions): ProjectJson {
  const { project, access } = view
  const json = presentProjectDetails(view, options)
  const api = `${options.externalUrl}/api/v4/projects/${project.id}`
  const admin = canAdminProject(access)
  const available = (feature: string) => isFeatureAvailable(access, project, feature)
  json.container_registry_image_prefix = `${instanceUrl(options.externalUrl).host}/${project.full_path.toLowerCase()}`
  const links: Record<string, string> = { self: api }
  if (available('issues')) links.issues = `${api}/issues`
  if (available('merge_requests')) links.merge_requests = `${api}/merge_requests`
  links.repo_branches = `${api}/repository/branches`
  links.labels = `${api}/labels`
  links.events = `${api}/events`
  links.members = `${api}/members`
  links.cluster_agents = `${api}/cluster_agents`
  json._links = links
  json.packages_enabled = flag(project.packages_enabled)
  json.empty_repo = flag(project.empty_repo)
  json.archived = flag(project.archived)
  json.visibility = visibilityName(project.visibility_level)
  if (view.namespace.kind === 'user' && view.owner) json.owner = presentUserBasic(view.owner, options)
  json.resolve_outdated_diff_discussions = flag(project.resolve_outdated_diff_discussions)
  json.repository_object_format = project.repository_object_format
  json.issues_enabled = available('issues')
  json.merge_requests_enabled = available('merge_requests')
  json.wiki_enabled = available('wiki')
  json.jobs_enabled = available('builds')
  json.snippets_enabled = available('snippets')
  json.container_registry_enabled = available('container_registry')
  json.service_desk_enabled = flag(project.service_desk_enabled)
  // No incoming e-mail is configured, so Service Desk has no address.
  if (canAdminIssues(access)) json.service_desk_address = null
  json.can_create_merge_request_in = canCreateMergeRequestIn(access, project)
  // One named store each (FEATURE_LEVEL_PARAMS): stores by computed name turn an object this wide into a slow dictionary.
  json.issues_access_level = featureAccessName(project.issues_access_level)
  json.repository_access_level = featureAccessName(project.repository_access_level)
  json.merge_requests_access_level = featureAccessName(project.merge_requests_access_level)
  json.forking_access_level = featureAccessName(project.forking_access_level)
  json.wiki_access_level = featureAccessName(project.wiki_access_level)
  json.builds_access_level = featureAccessName(project.builds_access_level)
  json.snippets_access_level = featureAccessName(project.snippets_access_level)
  json.pages_access_level = featureAccessName(project.pages_access_level)
  json.analytics_access_level = featureAccessName(project.analytics_access_level)
  json.container_registry_access_level = featureAccessName(project.container_registry_access_level)
  json.security_and_compliance_access_level = featureAccessName(project.security_and_compliance_access_level)
  json.releases_access_level = featureAccessName(project.releases_access_level)
  json.environments_access_level = featureAccessName(project.environments_access_level)
  json.feature_flags_access_level = featureAccessName(project.feature_flags_access_level)
  json.infrastructure_access_level = featureAccessName(project.infrastructure_access_level)
  json.monitor_access_level = featureAccessName(project.monitor_access_level)
  json.model_experiments_access_level = featureAccessName(project.model_experiments_access_level)
  json.model_registry_access_level = featureAccessName(project.model_registry_access_level)
  json.emails_disabled = !flag(project.emails_enabled)
  json.emails_enabled = flag(project.emails_enabled)
  json.shared_runners_enabled = flag(project.shared_runners_enabled)
  json.lfs_enabled = flag(project.lfs_enabled)
  json.creator_id = project.creator_id
  if (project.forked_from_project_id !== null) json.mr_default_target_self = flag(project.mr_default_target_self)
  if (admin) {
    json.import_url = null
    json.import_type = null
  }
  json.import_status = project.import_status
  if (admin) json.import_error = project.import_error
  if (available('issues')) json.open_issues_count = 0
  json.description_html = view.description.html
  json.updated_at = project.updated_at
  if (admin) {
    json.ci_default_git_depth = project.ci_default_git_depth
    json.ci_delete_pipelines_in_seconds = project.ci_delete_pipelines_in_seconds
    json.ci_forward_deployment_enabled = flag(project.ci_forward_deployment_enabled)
    json.ci_forward_deployment_rollback_allowed = flag(project.ci_forward_deployment_rollback_allowed)
    json.ci_job_token_scope_enabled = false
    json.ci_separated_caches = flag(project.ci_separated_caches)
    json.ci_allow_fork_pipelines_to_run_in_parent_project = flag(project.ci_allow_fork_pipelines_to_run_in_parent_project)
    json.ci_id_token_sub_claim_components = JSON.parse(project.ci_id_token_sub_claim_components) as string[]
    json.build_git_strategy = project.build_allow_git_fetch === 1 ? 'fetch' : 'clone'
    json.keep_latest_artifact = flag(project.keep_latest_artifact)
    json.restrict_user_defined_variables = flag(project.restrict_user_defined_variables)
    json.ci_pipeline_variables_minimum_override_role = project.ci_pipeline_variables_minimum_override_role
    // Runner registration tokens are off, as in current GitLab.
    json.runners_token = null
    json.runner_token_expiration_interval = null
    json.group_runners_enabled = flag(project.group_runners_enabled)
    json.auto_cancel_pending_pipelines = project.auto_cancel_pending_pipelines
    json.build_timeout = project.build_timeout
    json.auto_devops_enabled = project.auto_devops_enabled === null ? true : flag(project.auto_devops_enabled)
    json.auto_devops_deploy_strategy = project.auto_devops_deploy_strategy
    json.ci_push_repository_for_job_token_allowed = flag(project.ci_push_repository_for_job_token_allowed)
  }
  if (canReadCode(access, project)) json.ci_config_path = project.ci_config_path
  json.public_jobs = flag(project.public_jobs)
  json.shared_with_groups = []
  json.only_allow_merge_if_pipeline_succeeds = flag(project.only_allow_merge_if_pipeline_succeeds)
  json.allow_merge_on_skipped_pipeline = flag(project.allow_merge_on_skipped_pipeline)
  json.request_access_enabled = flag(project.request_access_enabled)
  json.only_allow_merge_if_all_discussions_are_resolved = flag(project.only_allow_merge_if_all_discussions_are_resolved)
  json.remove_source_branch_after_merge = flag(project.remove_source_branch_after_merge)
  json.printing_merge_request_link_enabled = flag(project.printing_merge_request_link_enabled)
  json.merge_method = project.merge_method
  json.squash_option = project.squash_option
  json.enforce_auth_checks_on_uploads = flag(project.enforce_auth_checks_on_uploads)
  json.suggestion_commit_message = project.suggestion_commit_message
  json.merge_commit_template = project.merge_commit_template
  json.squash_commit_template = project.squash_commit_template
  json.issue_branch_template = project.issue_branch_template
  if (options.statistics && canReadStatistics(access)) {
    // Repository sizes are not measured yet.
    json.statistics = {
      commit_count: 0,
      storage_size: 0,
      repository_size: 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
      container_registry_size: 0,
    }
  }
  json.warn_about_potentially_unwanted_characters = flag(project.warn_about_potentially_unwanted_characters)
  json.autoclose_referenced_issues = flag(project.autoclose_referenced_issues)
  json.max_artifacts_size = project.max_artifacts_size
  return json
}

function memberAccessOf(level: number | null) {
  return level === null ? null : { access_level: level, notification_level: GLOBAL_NOTIFICATION_LEVEL }
}

/** Entities::ProjectWithAccess: the Project entity and the caller's own memberships. */
export function presentProjectWithAccess(view: ProjectView, options: ProjectPresentOptions, permissions: Permissions): ProjectJson {
  const json = presentProject(view, options)
  json.permissions = {
    project_access: memberAccessOf(permissions.projectLevel),
    group_access: view.namespace.kind === 'group' ? memberAccessOf(permissions.groupLevel) : null,
  }
  return json
}
