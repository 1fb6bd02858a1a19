import { Type, type Static } from '@sinclair/typebox'
import { MEMBER_ACCESS_LEVELS } from '../../core/access.js'
import { SUBGROUP_CREATION_LEVELS } from '../access/index.js'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { ProjectEntitySchema } from '../projects/index.js'

// Request params (GL lib/api/groups.rb, lib/api/helpers/groups_helpers.rb).

const Visibility = Type.Union([Type.Literal('private'), Type.Literal('internal'), Type.Literal('public')])

/** Gitlab::Access.project_creation_string_options. */
export const PROJECT_CREATION_LEVELS = { noone: 0, maintainer: 1, developer: 2, administrator: 3, owner: 4 } as const
export type ProjectCreationLevelName = keyof typeof PROJECT_CREATION_LEVELS

/** Gitlab::Access.subgroup_creation_string_options. */
export { SUBGROUP_CREATION_LEVELS }
export type SubgroupCreationLevelName = keyof typeof SUBGROUP_CREATION_LEVELS

const ProjectCreationLevel = Type.Union(Object.keys(PROJECT_CREATION_LEVELS).map((name) => Type.Literal(name as ProjectCreationLevelName)))
const SubgroupCreationLevel = Type.Union(
  Object.keys(SUBGROUP_CREATION_LEVELS).map((name) => Type.Literal(name as SubgroupCreationLevelName)),
)

export const GROUP_ORDER_COLUMNS = ['name', 'path', 'id', 'similarity'] as const
export type GroupOrderColumn = (typeof GROUP_ORDER_COLUMNS)[number]

/** `group_list_params`: GET /groups, /groups/:id/subgroups and /groups/:id/descendant_groups. */
const groupListParams = {
  statistics: Type.Boolean({ default: false }),
  archived: Type.Optional(Type.Boolean()),
  skip_groups: Type.Optional(Type.Array(Type.Integer(), { commaSeparated: true })),
  all_available: Type.Optional(Type.Boolean()),
  visibility: Type.Optional(Visibility),
  search: Type.Optional(Type.String()),
  owned: Type.Boolean({ default: false }),
  order_by: Type.Union(
    GROUP_ORDER_COLUMNS.map((c) => Type.Literal(c)),
    { default: 'name' },
  ),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' }),
  min_access_level: Type.Optional(Type.Union(MEMBER_ACCESS_LEVELS.map((level) => Type.Literal(level)))),
  top_level_only: Type.Optional(Type.Boolean()),
  active: Type.Optional(Type.Boolean()),
  ...paginationParams,
  // Read as GitLab's paginate_with_strategies reads them: `pagination=keyset` asks for keyset pages, any other value is offset.
  pagination: Type.Optional(Type.String()),
  cursor: Type.Optional(Type.String()),
  with_custom_attributes: Type.Boolean({ default: false }),
}

export const ListGroupsParams = Type.Object(groupListParams)
export type ListGroupsParams = Static<typeof ListGroupsParams>

export const ListChildGroupsParams = Type.Object({ id: Type.String(), ...groupListParams })
export type ListChildGroupsParams = Static<typeof ListChildGroupsParams>

/** `optional_params`: the settings POST and PUT share. */
const groupSettingsParams = {
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(Visibility),
  share_with_group_lock: Type.Optional(Type.Boolean()),
  require_two_factor_authentication: Type.Optional(Type.Boolean()),
  two_factor_grace_period: Type.Optional(Type.Integer()),
  project_creation_level: Type.Optional(ProjectCreationLevel),
  subgroup_creation_level: Type.Optional(SubgroupCreationLevel),
  emails_disabled: Type.Optional(Type.Boolean()),
  emails_enabled: Type.Optional(Type.Boolean()),
  mentions_disabled: Type.Optional(Type.Boolean()),
  lfs_enabled: Type.Optional(Type.Boolean()),
  request_access_enabled: Type.Optional(Type.Boolean()),
  default_branch: Type.Optional(Type.String()),
  default_branch_protection: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
  default_branch_protection_defaults: Type.Optional(
    Type.Object({
      allowed_to_push: Type.Optional(Type.Array(Type.Object({ access_level: Type.Integer() }))),
      allow_force_push: Type.Optional(Type.Boolean()),
      allowed_to_merge: Type.Optional(Type.Array(Type.Object({ access_level: Type.Integer() }))),
      developer_can_initial_push: Type.Optional(Type.Boolean()),
    }),
  ),
}

export const CreateGroupParams = Type.Object({
  name: Type.String(),
  path: Type.String(),
  parent_id: Type.Optional(Type.Integer()),
  ...groupSettingsParams,
})
export type CreateGroupParams = Static<typeof CreateGroupParams>

export const UpdateGroupParams = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  ...groupSettingsParams,
})
export type UpdateGroupParams = Static<typeof UpdateGroupParams>

export const GroupIdParams = Type.Object({ id: Type.String() })

export const ShowGroupParams = Type.Object({
  id: Type.String(),
  with_custom_attributes: Type.Boolean({ default: false }),
  with_projects: Type.Boolean({ default: true }),
})

export const TransferGroupParams = Type.Object({
  id: Type.String(),
  group_id: Type.Optional(Type.Integer()),
})

// Response entities (GL lib/api/entities/basic_group_details.rb, group.rb, group_detail.rb), fields in GitLab's order.

const NullableString = Nullable(Type.String())

const AccessLevelEntry = Type.Object({ access_level: Type.Integer() })

/** Keys in the order PostgreSQL's jsonb gives them back, as GitLab serves the stored setting. */
export const BranchProtectionDefaultsJson = Type.Object({
  allowed_to_push: Type.Array(AccessLevelEntry),
  allow_force_push: Type.Boolean(),
  allowed_to_merge: Type.Array(AccessLevelEntry),
  developer_can_initial_push: Type.Boolean(),
})
export type BranchProtectionDefaultsJson = Static<typeof BranchProtectionDefaultsJson>

export const GroupStatisticsJson = Type.Object({
  storage_size: Type.Integer(),
  repository_size: Type.Integer(),
  wiki_size: Type.Integer(),
  lfs_objects_size: Type.Integer(),
  job_artifacts_size: Type.Integer(),
  pipeline_artifacts_size: Type.Integer(),
  packages_size: Type.Integer(),
  snippets_size: Type.Integer(),
  uploads_size: Type.Integer(),
})
export type GroupStatisticsJson = Static<typeof GroupStatisticsJson>

export const CustomAttributeJson = Type.Object({ key: Type.String(), value: Type.String() })

export const GroupJson = Type.Object({
  id: Type.Integer(),
  web_url: Type.String(),
  name: Type.String(),
  path: Type.String(),
  description: Type.String(),
  visibility: Type.String(),
  share_with_group_lock: Type.Boolean(),
  require_two_factor_authentication: Type.Boolean(),
  two_factor_grace_period: Type.Integer(),
  project_creation_level: Type.String(),
  auto_devops_enabled: Nullable(Type.Boolean()),
  subgroup_creation_level: Type.String(),
  emails_disabled: Type.Boolean(),
  emails_enabled: Type.Boolean(),
  show_diff_preview_in_email: Type.Boolean(),
  mentions_disabled: Type.Boolean(),
  lfs_enabled: Type.Boolean(),
  archived: Type.Boolean(),
  math_rendering_limits_enabled: Type.Boolean(),
  lock_math_rendering_limits_enabled: Type.Boolean(),
  default_branch: NullableString,
  default_branch_protection: Type.Integer(),
  default_branch_protection_defaults: BranchProtectionDefaultsJson,
  avatar_url: NullableString,
  request_access_enabled: Type.Boolean(),
  full_name: Type.String(),
  full_path: Type.String(),
  created_at: Type.String(),
  parent_id: Nullable(Type.Integer()),
  organization_id: Type.Integer(),
  shared_runners_setting: Type.String(),
  max_artifacts_size: Nullable(Type.Integer()),
  custom_attributes: Type.Optional(Type.Array(CustomAttributeJson)),
  statistics: Type.Optional(GroupStatisticsJson),
  marked_for_deletion_on: NullableString,
  root_storage_statistics: Type.Optional(Type.Null()),
})
export type GroupJson = Static<typeof GroupJson>

export const GroupDetailJson = Type.Object({
  ...GroupJson.properties,
  shared_with_groups: Type.Array(Type.Unknown()),
  runners_token: Type.Optional(NullableString),
  prevent_sharing_groups_outside_hierarchy: Type.Optional(Type.Boolean()),
  projects: Type.Optional(Type.Array(ProjectEntitySchema)),
  shared_projects: Type.Optional(Type.Array(ProjectEntitySchema)),
})
export type GroupDetailJson = Static<typeof GroupDetailJson>

export const GroupListResponse = Type.Array(GroupJson)

export const AcceptedJson = Type.Object({ message: Type.String() })
