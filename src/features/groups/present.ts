import { visibilityName } from '../../core/access.js'
import type { NamespaceRow } from '../../db/schema.js'
import { branchProtectionOf } from '../protected-refs/index.js'
import {
  PROJECT_CREATION_LEVELS,
  SUBGROUP_CREATION_LEVELS,
  type GroupDetailJson,
  type GroupJson,
  type GroupStatisticsJson,
} from './schemas.js'

/** What group presenters need besides the group. */
export interface GroupPresentOptions {
  externalUrl: string
  /** Administrators asked for statistics. */
  statistics: boolean
  /** Administrators asked for custom attributes. */
  customAttributes: boolean
  /** The instance's default branch protection level, shown by groups without their own. */
  instanceBranchProtection: number
}

// No storage is measured yet: every size is zero.
function emptyStatistics(): GroupStatisticsJson {
  return {
    storage_size: 0,
    repository_size: 0,
    wiki_size: 0,
    lfs_objects_size: 0,
    job_artifacts_size: 0,
    pipeline_artifacts_size: 0,
    packages_size: 0,
    snippets_size: 0,
    uploads_size: 0,
  }
}

function nameOfLevel<T extends Record<string, number>>(levels: T, level: number, fallback: keyof T): string {
  return (Object.keys(levels).find((name) => levels[name] === level) ?? fallback) as string
}

export function groupWebUrl(group: Pick<NamespaceRow, 'full_path'>, externalUrl: string): string {
  return `${externalUrl}/groups/${group.full_path}`
}

/** Entities::Group (with BasicGroupDetails first). */
export function presentGroup(group: NamespaceRow, options: GroupPresentOptions): GroupJson {
  const branchProtection = branchProtectionOf(group, options.instanceBranchProtection)
  const json = {
    id: group.id,
    web_url: groupWebUrl(group, options.externalUrl),
    name: group.name,
    path: group.path,
    description: group.description,
    visibility: visibilityName(group.visibility_level),
    share_with_group_lock: group.share_with_group_lock === 1,
    require_two_factor_authentication: group.require_two_factor_authentication === 1,
    two_factor_grace_period: group.two_factor_grace_period,
    project_creation_level: nameOfLevel(PROJECT_CREATION_LEVELS, group.project_creation_level, 'developer'),
    auto_devops_enabled: null,
    subgroup_creation_level: nameOfLevel(SUBGROUP_CREATION_LEVELS, group.subgroup_creation_level, 'owner'),
    emails_disabled: group.emails_enabled !== 1,
    emails_enabled: group.emails_enabled === 1,
    show_diff_preview_in_email: true,
    mentions_disabled: group.mentions_disabled === 1,
    lfs_enabled: group.lfs_enabled === 1,
    archived: false,
    math_rendering_limits_enabled: true,
    lock_math_rendering_limits_enabled: false,
    default_branch: group.default_branch,
    default_branch_protection: branchProtection.level,
    default_branch_protection_defaults: branchProtection.defaults,
    avatar_url: null,
    request_access_enabled: group.request_access_enabled === 1,
    full_name: group.full_name,
    full_path: group.full_path,
    created_at: group.created_at,
    parent_id: group.parent_id,
    // Every group belongs to the instance's one (default) organization.
    organization_id: 1,
    shared_runners_setting: 'enabled',
    max_artifacts_size: null,
  } as GroupJson
  if (options.customAttributes) json.custom_attributes = []
  if (options.statistics) json.statistics = emptyStatistics()
  json.marked_for_deletion_on = null
  if (options.statistics && group.parent_id === null) json.root_storage_statistics = null
  return json
}

/** What GroupDetail adds: `runnersToken` for those who administer the group; projects only when asked for. */
export interface GroupDetailExtras {
  runnersToken: boolean
  projects?: unknown[]
  sharedProjects?: unknown[]
}

/** Entities::GroupDetail. */
export function presentGroupDetail(group: NamespaceRow, options: GroupPresentOptions, extras: GroupDetailExtras): GroupDetailJson {
  const json = presentGroup(group, options) as GroupDetailJson
  // Sharing groups with groups is not offered, so no group is ever shared with this one.
  json.shared_with_groups = []
  // Registration tokens are disabled, as on new GitLab instances: administrators see null.
  if (extras.runnersToken) json.runners_token = null
  if (group.parent_id === null) json.prevent_sharing_groups_outside_hierarchy = false
  // Already presented by the projects feature as its Project entity.
  if (extras.projects) json.projects = extras.projects as GroupDetailJson['projects']
  if (extras.sharedProjects) json.shared_projects = extras.sharedProjects as GroupDetailJson['shared_projects']
  return json
}
