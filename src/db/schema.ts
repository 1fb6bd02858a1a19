import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

/**
 * Columns with a database default are Generated<>: optional on insert.
 * Column conventions, the same on both engines:
 * - flags are integers 0/1 (SQLite has no boolean; one representation keeps SQL and code identical);
 * - timestamps are ISO 8601 UTC strings with milliseconds (pg's parser is set to produce them);
 * - dates are 'YYYY-MM-DD' strings; JSON values are text.
 */
export type Flag = number
export type Timestamp = string

export interface UsersTable {
  id: Generated<number>
  username: string
  email: string
  name: string
  password_digest: string | null
  state: Generated<string>
  admin: Generated<Flag>
  external: Generated<Flag>
  bot: Generated<Flag>
  can_create_group: Generated<Flag>
  projects_limit: Generated<number>
  private_profile: Generated<Flag>
  two_factor_enabled: Generated<Flag>
  bio: Generated<string>
  location: Generated<string>
  public_email: string | null
  commit_email: string | null
  website_url: Generated<string>
  organization: Generated<string>
  job_title: Generated<string>
  pronouns: string | null
  skype: Generated<string>
  linkedin: Generated<string>
  twitter: Generated<string>
  discord: Generated<string>
  note: string | null
  theme_id: Generated<number>
  color_scheme_id: Generated<number>
  created_by_id: number | null
  confirmed_at: Timestamp | null
  last_sign_in_at: Timestamp | null
  current_sign_in_at: Timestamp | null
  last_activity_on: string | null
  sign_in_count: Generated<number>
  current_sign_in_ip: string | null
  last_sign_in_ip: string | null
  /** Set while the account is locked after too many failed sign-ins. */
  locked_at: Timestamp | null
  /** A password set by an administrator expires at once: the user must choose a new one. */
  password_expires_at: Timestamp | null
  /** Failed sign-ins since the last success; reaching the limit locks the account. */
  failed_attempts: Generated<number>
  /** Where notifications go; null means the primary e-mail. */
  notification_email: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface PersonalAccessTokensTable {
  id: Generated<number>
  user_id: number
  name: string
  description: string | null
  token_digest: string
  /** JSON array of scope names. */
  scopes: string
  impersonation: Generated<Flag>
  revoked: Generated<Flag>
  expires_at: string | null
  last_used_at: Timestamp | null
  /** JSON array of the last client IPs that used the token, oldest first (at most 5). */
  last_used_ips: Generated<string>
  /** The token this one replaced by rotation; a family is revoked together when an old member is reused. */
  previous_token_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ApplicationSettingsTable {
  name: string
  /** JSON value. */
  value: string
  updated_at: Timestamp
}

/** Personal namespaces (kind 'user') and groups (kind 'group'). */
export interface NamespacesTable {
  id: Generated<number>
  kind: 'user' | 'group'
  name: string
  path: string
  /** Paths from the root, '/'-joined; kept up to date on rename and transfer. */
  full_path: string
  /** Names from the root, ' / '-joined. */
  full_name: string
  owner_id: number | null
  parent_id: number | null
  /** Ids from the root down to this namespace, each followed by '/': '4/9/12/'. */
  traversal_ids: Generated<string>
  visibility_level: Generated<number>
  description: Generated<string>
  request_access_enabled: Generated<Flag>
  share_with_group_lock: Generated<Flag>
  require_two_factor_authentication: Generated<Flag>
  two_factor_grace_period: Generated<number>
  project_creation_level: Generated<number>
  subgroup_creation_level: Generated<number>
  emails_enabled: Generated<Flag>
  mentions_disabled: Generated<Flag>
  lfs_enabled: Generated<Flag>
  default_branch: string | null
  /** Set by DELETE of a group (on it and every descendant); the deletion job removes rows and repositories. */
  pending_delete: Generated<Flag>
  /** The storage of a group's wiki repository; null while the group has none. */
  wiki_repository_storage: string | null
  wiki_repository_read_only: Generated<Flag>
  /** A group's Gitlab::Access protection level (0–4); null for the instance's default. */
  default_branch_protection: number | null
  /** JSON: a group's default branch protection (allowed_to_push, allow_force_push, allowed_to_merge, developer_can_initial_push); null for the instance's. */
  default_branch_protection_defaults: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ProjectsTable {
  id: Generated<number>
  namespace_id: number
  name: string
  path: string
  full_path: string
  full_name: string
  description: string | null
  visibility_level: Generated<number>
  creator_id: number | null
  default_branch: string | null
  empty_repo: Generated<Flag>
  /** The README on the default branch (GL `repository.readme_path`); null when there is none. */
  readme_path: string | null
  archived: Generated<Flag>
  star_count: Generated<number>
  forked_from_project_id: number | null
  repository_storage: Generated<string>
  repository_object_format: Generated<string>
  import_status: Generated<string>
  import_error: string | null
  /** Set by DELETE; the deletion job removes the rows and the repository. Finders skip marked projects. */
  pending_delete: Generated<Flag>
  /** Set while a storage move copies the repository: pushes are refused. */
  repository_read_only: Generated<Flag>
  /** JSON array of topic names. */
  topics: Generated<string>
  merge_method: Generated<string>
  squash_option: Generated<string>
  suggestion_commit_message: string | null
  merge_commit_template: string | null
  squash_commit_template: string | null
  issue_branch_template: string | null
  ci_config_path: string | null
  build_timeout: Generated<number>
  ci_default_git_depth: Generated<number>
  resolve_outdated_diff_discussions: Generated<Flag>
  shared_runners_enabled: Generated<Flag>
  group_runners_enabled: Generated<Flag>
  public_jobs: Generated<Flag>
  only_allow_merge_if_pipeline_succeeds: Generated<Flag>
  allow_merge_on_skipped_pipeline: Generated<Flag>
  restrict_user_defined_variables: Generated<Flag>
  only_allow_merge_if_all_discussions_are_resolved: Generated<Flag>
  remove_source_branch_after_merge: Generated<Flag>
  printing_merge_request_link_enabled: Generated<Flag>
  request_access_enabled: Generated<Flag>
  autoclose_referenced_issues: Generated<Flag>
  enforce_auth_checks_on_uploads: Generated<Flag>
  lfs_enabled: Generated<Flag>
  emails_enabled: Generated<Flag>
  packages_enabled: Generated<Flag>
  service_desk_enabled: Generated<Flag>
  mr_default_target_self: Generated<Flag>
  show_default_award_emojis: Generated<Flag>
  warn_about_potentially_unwanted_characters: Generated<Flag>
  ci_forward_deployment_enabled: Generated<Flag>
  keep_latest_artifact: Generated<Flag>
  /** Feature access levels: 0 disabled, 10 private (members), 20 enabled, 30 public. */
  issues_access_level: Generated<number>
  repository_access_level: Generated<number>
  merge_requests_access_level: Generated<number>
  forking_access_level: Generated<number>
  wiki_access_level: Generated<number>
  builds_access_level: Generated<number>
  snippets_access_level: Generated<number>
  pages_access_level: Generated<number>
  operations_access_level: Generated<number>
  analytics_access_level: Generated<number>
  container_registry_access_level: Generated<number>
  security_and_compliance_access_level: Generated<number>
  releases_access_level: Generated<number>
  environments_access_level: Generated<number>
  feature_flags_access_level: Generated<number>
  infrastructure_access_level: Generated<number>
  monitor_access_level: Generated<number>
  model_experiments_access_level: Generated<number>
  model_registry_access_level: Generated<number>
  requirements_access_level: Generated<number>
  ci_delete_pipelines_in_seconds: number | null
  ci_forward_deployment_rollback_allowed: Generated<Flag>
  ci_separated_caches: Generated<Flag>
  ci_allow_fork_pipelines_to_run_in_parent_project: Generated<Flag>
  ci_push_repository_for_job_token_allowed: Generated<Flag>
  ci_pipeline_variables_minimum_override_role: Generated<string>
  /** JSON array of claim names. */
  ci_id_token_sub_claim_components: Generated<string>
  build_allow_git_fetch: Generated<Flag>
  auto_cancel_pending_pipelines: Generated<string>
  /** Null follows the instance, where Auto DevOps is on. */
  auto_devops_enabled: Flag | null
  auto_devops_deploy_strategy: Generated<string>
  max_artifacts_size: number | null
  show_diff_preview_in_email: Generated<Flag>
  last_activity_at: Timestamp
  created_at: Timestamp
  updated_at: Timestamp
}

export interface RedirectRoutesTable {
  id: Generated<number>
  path: string
  project_id: number | null
  namespace_id: number | null
  created_at: Timestamp
}

/** A direct membership in a group (namespace_id) or a project (project_id). */
export interface MembersTable {
  id: Generated<number>
  user_id: number
  namespace_id: number | null
  project_id: number | null
  access_level: number
  expires_at: string | null
  created_by_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ProjectStarsTable {
  user_id: number
  project_id: number
  created_at: Timestamp
}

/** A browser session: a visitor's until someone signs in in it. Found by the digest of the cookie's value. */
export interface SessionsTable {
  id: Generated<number>
  session_digest: string
  user_id: number | null
  csrf_secret: string
  /** Where to go after signing in (Devise's `user_return_to`). */
  return_to: string | null
  /** The notice or alert the next page shows (Rails' flash), JSON `{"kind","text"}`. */
  flash: string | null
  /** While an administrator browses as the session's user (impersonation): that administrator. */
  impersonator_id: number | null
  ip: string | null
  user_agent: string | null
  created_at: Timestamp
  updated_at: Timestamp
  expires_at: Timestamp
}

export interface OAuthApplicationsTable {
  id: Generated<number>
  /** The Application ID, sent as client_id. */
  uid: string
  secret_digest: string
  name: string
  /** Registered redirect URIs, one per line. */
  redirect_uri: string
  /** Space-separated scope names. */
  scopes: Generated<string>
  confidential: Generated<Flag>
  trusted: Generated<Flag>
  owner_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface OAuthAccessGrantsTable {
  id: Generated<number>
  application_id: number
  resource_owner_id: number
  code_digest: string
  redirect_uri: string
  scopes: string
  code_challenge: string | null
  code_challenge_method: string | null
  nonce: string | null
  expires_in: number
  created_at: Timestamp
  revoked_at: Timestamp | null
}

export interface OAuthAccessTokensTable {
  id: Generated<number>
  application_id: number | null
  resource_owner_id: number
  token_digest: string
  refresh_token_digest: string | null
  scopes: string
  expires_in: number | null
  grant_id: number | null
  previous_token_id: number | null
  created_at: Timestamp
  revoked_at: Timestamp | null
}

export interface OAuthSigningKeysTable {
  id: Generated<number>
  kid: string
  private_jwk: string
  created_at: Timestamp
}

/** The last iid handed out per project and kind ('issues', 'merge_requests', 'milestones', …). */
export interface InternalIdsTable {
  project_id: number
  usage: string
  last_value: number
}

export interface MilestonesTable {
  id: Generated<number>
  project_id: number
  iid: number
  title: string
  description: string | null
  /** 'active' or 'closed'. */
  state: Generated<string>
  start_date: string | null
  due_date: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface IssuesTable {
  id: Generated<number>
  project_id: number
  iid: number
  author_id: number
  title: string
  description: string | null
  /** 'opened' or 'closed'. */
  state: Generated<string>
  /** 'issue' or 'incident'. */
  issue_type: Generated<string>
  confidential: Generated<Flag>
  discussion_locked: Generated<Flag>
  due_date: string | null
  weight: number | null
  relative_position: number | null
  milestone_id: number | null
  closed_by_id: number | null
  updated_by_id: number | null
  closed_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface IssueAssigneesTable {
  issue_id: number
  user_id: number
}

export interface MergeRequestsTable {
  id: Generated<number>
  /** The target project. */
  project_id: number
  iid: number
  source_project_id: number | null
  author_id: number
  title: string
  description: string | null
  /** 'opened', 'closed', 'merged' or 'locked'. */
  state: Generated<string>
  source_branch: string
  target_branch: string
  draft: Generated<Flag>
  discussion_locked: Generated<Flag>
  squash: Generated<Flag>
  remove_source_branch: Generated<Flag>
  milestone_id: number | null
  merge_commit_sha: string | null
  squash_commit_sha: string | null
  merged_by_id: number | null
  closed_by_id: number | null
  updated_by_id: number | null
  merged_at: Timestamp | null
  closed_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
  /** The job rebasing the source branch, while it is queued or running (GL rebase_jid). */
  rebase_job_id: number | null
  /** Why the last rebase failed (GL merge_error); cleared by the next one that succeeds. */
  merge_error: string | null
}

/** A version of a merge request's diff (GL merge_request_diffs). */
export interface MergeRequestDiffsTable {
  id: Generated<number>
  merge_request_id: number
  head_commit_sha: string
  base_commit_sha: string | null
  start_commit_sha: string
  /** 'collected', 'overflow' or 'empty'. */
  state: string
  /** GitLab's string: the number of changed files, "1000+" past the limit. */
  real_size: string | null
  patch_id_sha: string | null
  created_at: Timestamp
}

export interface MergeRequestAssigneesTable {
  merge_request_id: number
  user_id: number
}

/** A user asked to review a merge request (GL merge_request_reviewers). */
export interface MergeRequestReviewersTable {
  merge_request_id: number
  user_id: number
  /** GL MergeRequestReviewer states: 'unreviewed' until the review, then 'reviewed', 'requested_changes' or 'approved'. */
  state: Generated<string>
  created_at: Timestamp
}

/** A user's approval of a merge request (GL approvals). */
export interface MergeRequestApprovalsTable {
  merge_request_id: number
  user_id: number
  created_at: Timestamp
}

/** A project label (project_id set) or a group label (group_id set). */
export interface LabelsTable {
  id: Generated<number>
  title: string
  color: string
  description: string | null
  project_id: number | null
  group_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface IssueLabelsTable {
  issue_id: number
  label_id: number
}

export interface MergeRequestLabelsTable {
  merge_request_id: number
  label_id: number
}

/** A label's priority in one project. */
export interface LabelPrioritiesTable {
  project_id: number
  label_id: number
  priority: number
}

/** How many issues and merge requests of one project carry a label, kept by triggers (migration 20261123T1847). */
export interface LabelCountsTable {
  label_id: number
  project_id: number
  open_issues: number
  closed_issues: number
  open_confidential_issues: number
  closed_confidential_issues: number
  open_merge_requests: number
}

/** A user's subscription to a label, for one project or (project_id null) everywhere the label is. */
export interface LabelSubscriptionsTable {
  id: Generated<number>
  user_id: number
  label_id: number
  project_id: number | null
  created_at: Timestamp
}

/** A comment or system note on exactly one of an issue or a merge request. */
export interface NotesTable {
  id: Generated<number>
  project_id: number
  issue_id: number | null
  merge_request_id: number | null
  alert_id: Generated<number | null>
  author_id: number
  body: string
  system: Generated<Flag>
  internal: Generated<Flag>
  updated_by_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
  /** null for a comment or system note, 'DiscussionNote' in a thread, 'DiffNote' on a diff line (GL notes.type). */
  type: string | null
  /** The thread the note belongs to (40 hex digits); null for a note alone. */
  discussion_id: string | null
  /** A DiffNote's position as GitLab's JSON (base_sha, start_sha, head_sha, paths, position_type, lines). */
  position: string | null
  /** A DiffNote's line: sha1 of the file path, its old and new line number (GL Gitlab::Git.diff_line_code). */
  line_code: string | null
  resolved_at: Timestamp | null
  resolved_by_id: number | null
}

/** A contribution event; the target is named by type and id and may no longer exist. */
export interface EventsTable {
  id: Generated<number>
  project_id: number | null
  author_id: number
  action: number
  /** 'Issue', 'MergeRequest', 'Note', 'Milestone', … or null. */
  target_type: string | null
  target_id: number | null
  created_at: Timestamp
}

/** The ref update a push event describes (GL PushEventPayload). */
export interface PushEventPayloadsTable {
  event_id: number
  commit_count: number
  action: 'created' | 'removed' | 'pushed'
  ref_type: 'branch' | 'tag'
  commit_from: string | null
  commit_to: string | null
  /** The short name: `main`, `v1.0`. */
  ref: string
  commit_title: string | null
}

/** Global (no source), group ('Namespace') or project ('Project') notification settings of a user. */
export interface NotificationSettingsTable {
  id: Generated<number>
  user_id: number
  source_type: 'Namespace' | 'Project' | null
  source_id: number | null
  level: number
  /** JSON object of event name to boolean; events never set are absent. */
  events: Generated<string>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface SpamLogsTable {
  id: Generated<number>
  user_id: number
  /** 'Issue' or 'Note'. */
  noteable_type: string
  title: string | null
  description: string | null
  source_ip: string | null
  user_agent: string | null
  recaptcha_verified: Generated<Flag>
  created_at: Timestamp
}

export type JobState = 'queued' | 'running' | 'done' | 'failed'

export interface JobsTable {
  id: Generated<number>
  kind: string
  /** The payload as JSON text, validated against the kind's schema on enqueue. */
  payload: string
  state: Generated<JobState>
  /** Runs started so far, the one in progress included. */
  attempts: Generated<number>
  max_attempts: number
  run_at: Timestamp
  /** While running: the claim is the worker's until then; a later claim may take the job again. */
  lease_until: Timestamp | null
  locked_by: string | null
  last_error: string | null
  unique_key: string | null
  created_at: Timestamp
  updated_at: Timestamp
  finished_at: Timestamp | null
}

/** A project snippet (project_id set) or a personal snippet; its files live in its own repository. */
export interface SnippetsTable {
  id: Generated<number>
  title: string
  description: string | null
  /** The first file's name and content, as GitLab keeps them on the row. */
  file_name: string | null
  content: string | null
  visibility_level: Generated<number>
  author_id: number
  project_id: number | null
  repository_storage: Generated<string>
  repository_read_only: Generated<Flag>
  created_at: Timestamp
  updated_at: Timestamp
}

/** A move of a project's, a snippet's or a group's (wiki) repository to another storage. */
export interface RepositoryStorageMovesTable {
  id: Generated<number>
  container_type: 'project' | 'snippet' | 'group'
  project_id: number | null
  snippet_id: number | null
  group_id: number | null
  /** GL RepositoryStorageMovable: 1 initial, 2 scheduled, 3 started, 4 finished, 5 failed, 6 replicated, 7 cleanup failed. */
  state: Generated<number>
  source_storage_name: string
  destination_storage_name: string
  error_message: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** An environment of a project (GL Environment). */
export interface EnvironmentsTable {
  id: Generated<number>
  project_id: number
  name: string
  slug: string
  external_url: string | null
  /** 'available' | 'stopping' | 'stopped' */
  state: Generated<string>
  /** production, staging, testing, development or other */
  tier: Generated<string>
  auto_stop_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** A project's registered Kubernetes cluster (GL Clusters::Cluster with its Platforms::Kubernetes). */
export interface ClustersTable {
  id: Generated<number>
  project_id: number
  user_id: number | null
  name: string
  enabled: Generated<Flag>
  managed: Generated<Flag>
  domain: string | null
  environment_scope: Generated<string>
  namespace_per_environment: Generated<Flag>
  api_url: string
  namespace: string | null
  /** 'rbac' | 'abac' | 'unknown_authorization' */
  authorization_type: Generated<string>
  ca_cert: string | null
  token: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** A metrics dashboard annotation under an environment or a cluster. */
export interface MetricsDashboardAnnotationsTable {
  id: Generated<number>
  environment_id: number | null
  cluster_id: number | null
  dashboard_path: string
  description: string
  starting_at: Timestamp
  ending_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** An alert integration: an HTTP endpoint or the Prometheus endpoint (GL AlertManagement::HttpIntegration). */
export interface AlertIntegrationsTable {
  id: Generated<number>
  project_id: number
  name: string
  /** 'http' | 'prometheus' */
  type: string
  active: Generated<Flag>
  endpoint_identifier: string
  token: string
  api_url: string | null
  /** JSON text. */
  payload_example: Generated<string>
  /** JSON text. */
  payload_attribute_mappings: Generated<string>
  create_incident: Generated<Flag>
  auto_close_incident: Generated<Flag>
  created_at: Timestamp
  updated_at: Timestamp
}

/** An alert (GL AlertManagement::Alert). */
export interface AlertsTable {
  id: Generated<number>
  project_id: number
  iid: number
  integration_id: number | null
  title: string
  description: string | null
  /** critical 0, high 1, medium 2, low 3, info 4, unknown 5 */
  severity: Generated<number>
  /** triggered 0, acknowledged 1, resolved 2, ignored 3 */
  status: Generated<number>
  started_at: Timestamp
  ended_at: Timestamp | null
  monitoring_tool: string | null
  service: string | null
  /** JSON array of strings. */
  hosts: Generated<string>
  /** SHA-1 hex, or null: never deduplicated. */
  fingerprint: string | null
  environment_id: number | null
  runbook: string | null
  /** JSON text: the payload as received. */
  payload: string
  events: Generated<number>
  issue_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** A project's error tracking settings (GL ErrorTracking::ProjectErrorTrackingSetting). */
export interface ErrorTrackingSettingsTable {
  id: Generated<number>
  project_id: number
  enabled: Generated<Flag>
  integrated: Generated<Flag>
  api_url: string | null
  token: string | null
  project_name: string | null
  organization_name: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** A key error-tracking SDKs send in their DSN (GL ErrorTracking::ClientKey). */
export interface ErrorTrackingClientKeysTable {
  id: Generated<number>
  project_id: number
  active: Generated<Flag>
  public_key: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** Events grouped by (name, actor, platform) (GL ErrorTracking::Error). */
export interface ErrorTrackingErrorsTable {
  id: Generated<number>
  project_id: number
  name: string
  description: string
  actor: string
  /** '' when the events name no platform. */
  platform: Generated<string>
  first_seen_at: Timestamp
  last_seen_at: Timestamp
  events_count: Generated<number>
  /** unresolved 0, resolved 1, ignored 2 */
  status: Generated<number>
  created_at: Timestamp
  updated_at: Timestamp
}

/** One reported event of an error (GL ErrorTracking::ErrorEvent). */
export interface ErrorTrackingErrorEventsTable {
  id: Generated<number>
  error_id: number
  description: string
  environment: string | null
  level: string | null
  occurred_at: Timestamp
  /** JSON text: the event as received. */
  payload: string
  created_at: Timestamp
}

/** A protected branch or wildcard of a project (GL protected_branches). */
export interface ProtectedBranchesTable {
  id: Generated<number>
  project_id: number
  /** A branch name or a wildcard such as `release/*`. */
  name: string
  allow_force_push: Generated<Flag>
  code_owner_approval_required: Generated<Flag>
  created_at: Timestamp
  updated_at: Timestamp
}

/** Who may push to, merge into or unprotect a protected branch (GL protected_branch_*_access_levels). */
export interface ProtectedBranchAccessLevelsTable {
  id: Generated<number>
  protected_branch_id: number
  kind: 'push' | 'merge' | 'unprotect'
  access_level: number
  user_id: number | null
  group_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** A protected tag or wildcard of a project (GL protected_tags). */
export interface ProtectedTagsTable {
  id: Generated<number>
  project_id: number
  name: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** Who may create a protected tag (GL protected_tag_create_access_levels). */
export interface ProtectedTagCreateAccessLevelsTable {
  id: Generated<number>
  protected_tag_id: number
  access_level: number
  user_id: number | null
  group_id: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

/** An e-mail waiting to be sent, or sent (kept a while): written with the change that causes it, sent by jobs. */
export interface MailOutboxTable {
  id: Generated<number>
  /** The Message-ID header, angle brackets included; a retry sends the same one. */
  message_id: string
  to_address: string
  to_user_id: number | null
  subject: string
  text_body: string
  html_body: string
  /** JSON object of extra header names and values. */
  headers: string
  state: Generated<MailState>
  /** Delivery attempts made, the one in progress included. */
  attempts: Generated<number>
  last_error: string | null
  /** When the message was queued: its Date header. */
  created_at: Timestamp
  sent_at: Timestamp | null
}

export type MailState = 'queued' | 'sent' | 'failed'

/** The digest of a password reset or unlock link sent to a user (Devise's reset_password_token, unlock_token). */
export interface AccountTokensTable {
  user_id: number
  purpose: AccountTokenPurpose
  token_digest: string
  /** When the link was sent: a reset link expires some time after it. */
  created_at: Timestamp
}

export type AccountTokenPurpose = 'reset_password' | 'unlock'

/** An outgoing webhook (GL web_hooks): a project's, a group's or the instance's (system hook), by `type`. */
export interface WebHooksTable {
  id: Generated<number>
  type: WebHookType
  project_id: number | null
  group_id: number | null
  /** The URL as entered, `{name}` placeholders included: the URL variables fill them when sending. */
  url: string
  /** Sent as X-Gitlab-Token; never shown back. */
  token: string | null
  /** JSON object of URL variable names and values (secrets: only the names are shown). */
  url_variables: Generated<string>
  /** JSON object of header names and values sent with every request (secrets: only the names are shown). */
  custom_headers: Generated<string>
  name: string | null
  description: string | null
  push_events: Generated<Flag>
  tag_push_events: Generated<Flag>
  issues_events: Generated<Flag>
  confidential_issues_events: Generated<Flag>
  note_events: Generated<Flag>
  confidential_note_events: Generated<Flag>
  merge_requests_events: Generated<Flag>
  job_events: Generated<Flag>
  pipeline_events: Generated<Flag>
  wiki_page_events: Generated<Flag>
  deployment_events: Generated<Flag>
  feature_flag_events: Generated<Flag>
  releases_events: Generated<Flag>
  milestone_events: Generated<Flag>
  emoji_events: Generated<Flag>
  resource_access_token_events: Generated<Flag>
  vulnerability_events: Generated<Flag>
  member_events: Generated<Flag>
  subgroup_events: Generated<Flag>
  project_events: Generated<Flag>
  repository_update_events: Generated<Flag>
  enable_ssl_verification: Generated<Flag>
  push_events_branch_filter: string | null
  branch_filter_strategy: Generated<BranchFilterStrategy>
  custom_webhook_template: string | null
  /** Failed requests in a row (GL WebHooks::AutoDisabling); a success sets it back to 0. */
  recent_failures: Generated<number>
  /** Until when a temporarily disabled hook sends nothing. */
  disabled_until: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

export type WebHookType = 'ProjectHook' | 'GroupHook' | 'SystemHook'
export type BranchFilterStrategy = 'wildcard' | 'regex' | 'all_branches'

/** A request a hook still has to send: written with the change it tells of, removed once sent or given up. */
export interface WebHookDeliveriesTable {
  id: Generated<number>
  web_hook_id: number
  /** GitLab's hook name: `push_hooks`, `issue_hooks`, `system_hooks`… (the log's `trigger`). */
  trigger: string
  /** The X-Gitlab-Event header. */
  event: string
  /** JSON of the body, before the hook's custom template. */
  payload: string
  /** Sent as Idempotency-Key, the same on every attempt. */
  idempotency_key: string
  /** Sent as X-Gitlab-Event-UUID. */
  event_uuid: string
  /** Requests sent so far. */
  attempts: Generated<number>
  created_at: Timestamp
  /** When it may be sent (again). */
  run_at: Timestamp | null
  /** A worker sending it holds it until then. */
  locked_until: Timestamp | null
}

/** One request a hook sent and what came back (GL web_hook_logs). */
export interface WebHookLogsTable {
  id: Generated<number>
  web_hook_id: number
  trigger: string
  /** The hook's URL as entered, with any user and password masked. */
  url: string
  /** SHA-256 of the URL the request went to: a resend needs the hook to point there still. */
  url_hash: string | null
  /** JSON objects; header values that are secrets are redacted. */
  request_headers: string
  request_data: string
  response_headers: string
  response_body: string
  /** The HTTP status as text, or `internal error` when no response came. */
  response_status: string
  /** Seconds. */
  execution_duration: number
  internal_error_message: string | null
  created_at: Timestamp
}

/** The one row counting sending rounds: changes recorded in one round share its sending job. */
export interface WebHookSendingTable {
  id: number
  round: number
}

/** A user's explicit choice to hear, or not, of one issue or merge request (GL subscriptions). */
export interface SubscriptionsTable {
  id: Generated<number>
  user_id: number
  subscribable_type: SubscribableType
  subscribable_id: number
  project_id: number
  /** 0 once the user unsubscribed: they hear of it no more, even as a participant. */
  subscribed: Generated<Flag>
  created_at: Timestamp
  updated_at: Timestamp
}

export type SubscribableType = 'Issue' | 'MergeRequest'

/** A notification e-mail about an issue or a merge request; its reply key is the secret of its unsubscribe link. */
export interface SentNotificationsTable {
  id: Generated<number>
  /** 32 hexadecimal digits (GL SentNotification.reply_key). */
  reply_key: string
  recipient_id: number
  project_id: number
  noteable_type: SubscribableType
  noteable_id: number
  /** The thread a note's e-mail belongs to. */
  in_reply_to_discussion_id: string | null
  created_at: Timestamp
}

export interface Database {
  users: UsersTable
  personal_access_tokens: PersonalAccessTokensTable
  application_settings: ApplicationSettingsTable
  namespaces: NamespacesTable
  projects: ProjectsTable
  redirect_routes: RedirectRoutesTable
  members: MembersTable
  project_stars: ProjectStarsTable
  sessions: SessionsTable
  oauth_applications: OAuthApplicationsTable
  oauth_access_grants: OAuthAccessGrantsTable
  oauth_access_tokens: OAuthAccessTokensTable
  oauth_signing_keys: OAuthSigningKeysTable
  internal_ids: InternalIdsTable
  milestones: MilestonesTable
  issues: IssuesTable
  issue_assignees: IssueAssigneesTable
  merge_requests: MergeRequestsTable
  merge_request_assignees: MergeRequestAssigneesTable
  merge_request_reviewers: MergeRequestReviewersTable
  merge_request_approvals: MergeRequestApprovalsTable
  merge_request_diffs: MergeRequestDiffsTable
  labels: LabelsTable
  issue_labels: IssueLabelsTable
  merge_request_labels: MergeRequestLabelsTable
  label_priorities: LabelPrioritiesTable
  label_subscriptions: LabelSubscriptionsTable
  label_counts: LabelCountsTable
  notes: NotesTable
  events: EventsTable
  push_event_payloads: PushEventPayloadsTable
  notification_settings: NotificationSettingsTable
  spam_logs: SpamLogsTable
  jobs: JobsTable
  snippets: SnippetsTable
  repository_storage_moves: RepositoryStorageMovesTable
  environments: EnvironmentsTable
  clusters: ClustersTable
  metrics_dashboard_annotations: MetricsDashboardAnnotationsTable
  alert_integrations: AlertIntegrationsTable
  alerts: AlertsTable
  error_tracking_settings: ErrorTrackingSettingsTable
  error_tracking_client_keys: ErrorTrackingClientKeysTable
  error_tracking_errors: ErrorTrackingErrorsTable
  error_tracking_error_events: ErrorTrackingErrorEventsTable
  protected_branches: ProtectedBranchesTable
  protected_branch_access_levels: ProtectedBranchAccessLevelsTable
  protected_tags: ProtectedTagsTable
  protected_tag_create_access_levels: ProtectedTagCreateAccessLevelsTable
  mail_outbox: MailOutboxTable
  account_tokens: AccountTokensTable
  web_hooks: WebHooksTable
  web_hook_deliveries: WebHookDeliveriesTable
  web_hook_logs: WebHookLogsTable
  web_hook_sending: WebHookSendingTable
  subscriptions: SubscriptionsTable
  sent_notifications: SentNotificationsTable
}

export type UserRow = Selectable<UsersTable>
export type NewUserRow = Insertable<UsersTable>
export type UserUpdate = Updateable<UsersTable>
export type TokenRow = Selectable<PersonalAccessTokensTable>
export type NewTokenRow = Insertable<PersonalAccessTokensTable>
export type NamespaceRow = Selectable<NamespacesTable>
export type NewNamespaceRow = Insertable<NamespacesTable>
export type NamespaceUpdate = Updateable<NamespacesTable>
export type ProjectRow = Selectable<ProjectsTable>
export type NewProjectRow = Insertable<ProjectsTable>
export type ProjectUpdate = Updateable<ProjectsTable>
export type MemberRow = Selectable<MembersTable>
export type NewMemberRow = Insertable<MembersTable>
export type SessionRow = Selectable<SessionsTable>
export type OAuthApplicationRow = Selectable<OAuthApplicationsTable>
export type NewOAuthApplicationRow = Insertable<OAuthApplicationsTable>
export type OAuthGrantRow = Selectable<OAuthAccessGrantsTable>
export type NewOAuthGrantRow = Insertable<OAuthAccessGrantsTable>
export type OAuthTokenRow = Selectable<OAuthAccessTokensTable>
export type NewOAuthTokenRow = Insertable<OAuthAccessTokensTable>
export type MilestoneRow = Selectable<MilestonesTable>
export type NewMilestoneRow = Insertable<MilestonesTable>
export type IssueRow = Selectable<IssuesTable>
export type NewIssueRow = Insertable<IssuesTable>
export type IssueUpdate = Updateable<IssuesTable>
export type MergeRequestRow = Selectable<MergeRequestsTable>
export type NewMergeRequestRow = Insertable<MergeRequestsTable>
export type MergeRequestUpdate = Updateable<MergeRequestsTable>
export type MergeRequestDiffRow = Selectable<MergeRequestDiffsTable>
export type NewMergeRequestDiffRow = Insertable<MergeRequestDiffsTable>
export type LabelRow = Selectable<LabelsTable>
export type NewLabelRow = Insertable<LabelsTable>
export type NoteRow = Selectable<NotesTable>
export type PushEventPayloadRow = Selectable<PushEventPayloadsTable>
export type NewNoteRow = Insertable<NotesTable>
export type EventRow = Selectable<EventsTable>
export type NewEventRow = Insertable<EventsTable>
export type NotificationSettingRow = Selectable<NotificationSettingsTable>
export type SpamLogRow = Selectable<SpamLogsTable>
export type NewSpamLogRow = Insertable<SpamLogsTable>
export type JobRow = Selectable<JobsTable>
export type NewJobRow = Insertable<JobsTable>
export type SnippetRow = Selectable<SnippetsTable>
export type NewSnippetRow = Insertable<SnippetsTable>
export type RepositoryStorageMoveRow = Selectable<RepositoryStorageMovesTable>
export type EnvironmentRow = Selectable<EnvironmentsTable>
export type ClusterRow = Selectable<ClustersTable>
export type AnnotationRow = Selectable<MetricsDashboardAnnotationsTable>
export type AlertIntegrationRow = Selectable<AlertIntegrationsTable>
export type AlertRow = Selectable<AlertsTable>
export type NewAlertRow = Insertable<AlertsTable>
export type ErrorTrackingSettingsRow = Selectable<ErrorTrackingSettingsTable>
export type ErrorTrackingClientKeyRow = Selectable<ErrorTrackingClientKeysTable>
export type ErrorTrackingErrorRow = Selectable<ErrorTrackingErrorsTable>
export type ErrorTrackingErrorEventRow = Selectable<ErrorTrackingErrorEventsTable>
export type ProtectedBranchRow = Selectable<ProtectedBranchesTable>
export type ProtectedBranchAccessLevelRow = Selectable<ProtectedBranchAccessLevelsTable>
export type ProtectedTagRow = Selectable<ProtectedTagsTable>
export type ProtectedTagCreateAccessLevelRow = Selectable<ProtectedTagCreateAccessLevelsTable>
export type MailOutboxRow = Selectable<MailOutboxTable>
export type NewMailOutboxRow = Insertable<MailOutboxTable>
export type AccountTokenRow = Selectable<AccountTokensTable>
export type WebHookRow = Selectable<WebHooksTable>
export type NewWebHookRow = Insertable<WebHooksTable>
export type WebHookUpdate = Updateable<WebHooksTable>
export type WebHookDeliveryRow = Selectable<WebHookDeliveriesTable>
export type WebHookLogRow = Selectable<WebHookLogsTable>
export type NewWebHookLogRow = Insertable<WebHookLogsTable>
export type SubscriptionRow = Selectable<SubscriptionsTable>
export type SentNotificationRow = Selectable<SentNotificationsTable>
export type NewSentNotificationRow = Insertable<SentNotificationsTable>
