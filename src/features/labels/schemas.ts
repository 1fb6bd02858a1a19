import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

// Request params (GL lib/api/labels.rb, lib/api/group_labels.rb, lib/api/helpers/label_helpers.rb, lib/api/subscriptions.rb).
// `:id` is a project or group id or URL-encoded full path; `:label_id` a label id or title.

export const ListProjectLabelsParams = Type.Object({
  id: Type.String(),
  with_counts: Type.Boolean({ default: false }),
  include_ancestor_groups: Type.Boolean({ default: true }),
  search: Type.Optional(Type.String()),
  ...paginationParams,
})
export type ListProjectLabelsParams = Static<typeof ListProjectLabelsParams>

export const ListGroupLabelsParams = Type.Object({
  id: Type.String(),
  with_counts: Type.Boolean({ default: false }),
  include_ancestor_groups: Type.Boolean({ default: true }),
  include_descendant_groups: Type.Boolean({ default: false }),
  only_group_labels: Type.Boolean({ default: true }),
  search: Type.Optional(Type.String()),
  ...paginationParams,
})
export type ListGroupLabelsParams = Static<typeof ListGroupLabelsParams>

export const ShowProjectLabelParams = Type.Object({
  id: Type.String(),
  label_id: Type.String(),
  include_ancestor_groups: Type.Boolean({ default: true }),
})

export const ShowGroupLabelParams = Type.Object({
  id: Type.String(),
  label_id: Type.String(),
  include_ancestor_groups: Type.Boolean({ default: true }),
  include_descendant_groups: Type.Boolean({ default: false }),
  only_group_labels: Type.Boolean({ default: true }),
})

const createFields = {
  id: Type.String(),
  name: Type.String(),
  color: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
}

export const CreateProjectLabelParams = Type.Object({
  ...createFields,
  priority: Type.Optional(Nullable(Type.Integer())),
})
export type CreateProjectLabelParams = Static<typeof CreateProjectLabelParams>

export const CreateGroupLabelParams = Type.Object(createFields)

const updateFields = {
  new_name: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
}

export const UpdateProjectLabelParams = Type.Object({
  id: Type.String(),
  label_id: Type.String(),
  ...updateFields,
  priority: Type.Optional(Nullable(Type.Integer())),
})
export type UpdateProjectLabelParams = Static<typeof UpdateProjectLabelParams>

export const UpdateGroupLabelParams = Type.Object({ id: Type.String(), label_id: Type.String(), ...updateFields })

/** The deprecated PUT /:id/labels: the label by `label_id` (an integer) or `name`, exactly one of them. */
export const UpdateProjectLabelByParamParams = Type.Object({
  id: Type.String(),
  label_id: Type.Optional(Type.Integer()),
  name: Type.Optional(Type.String()),
  ...updateFields,
  priority: Type.Optional(Nullable(Type.Integer())),
})
export type UpdateProjectLabelByParamParams = Static<typeof UpdateProjectLabelByParamParams>

export const UpdateGroupLabelByParamParams = Type.Object({
  id: Type.String(),
  label_id: Type.Optional(Type.Integer()),
  name: Type.Optional(Type.String()),
  ...updateFields,
})

export const LabelParams = Type.Object({ id: Type.String(), label_id: Type.String() })

/** The deprecated DELETE /projects/:id/labels: `label_id` or `name`, exactly one of them. */
export const DeleteProjectLabelByParamParams = Type.Object({
  id: Type.String(),
  label_id: Type.Optional(Type.Integer()),
  name: Type.Optional(Type.String()),
})

/** The deprecated DELETE /groups/:id/labels and PUT /projects/:id/labels/promote name the label by `name`. */
export const LabelByNameParams = Type.Object({ id: Type.String(), name: Type.String() })

export const SubscriptionParams = Type.Object({ id: Type.String(), label_id: Type.String() })

// Responses (GL lib/api/entities/label_basic.rb, label.rb, project_label.rb, group_label.rb).

const basicFields = {
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Nullable(Type.String()),
  text_color: Type.String(),
}

// Only with `with_counts=true`.
const countFields = {
  open_issues_count: Type.Optional(Type.Integer()),
  closed_issues_count: Type.Optional(Type.Integer()),
  open_merge_requests_count: Type.Optional(Type.Integer()),
}

export const GroupLabelJson = Type.Object({
  ...basicFields,
  ...countFields,
  subscribed: Type.Boolean(),
})
export type GroupLabelJson = Static<typeof GroupLabelJson>

export const ProjectLabelJson = Type.Object({
  ...basicFields,
  ...countFields,
  subscribed: Type.Boolean(),
  priority: Nullable(Type.Integer()),
  is_project_label: Type.Boolean(),
})
export type ProjectLabelJson = Static<typeof ProjectLabelJson>

/** The promote response carries only these fields (spec: Resources, Label). */
export const PromotedLabelJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Nullable(Type.String()),
  open_issues_count: Type.Integer(),
  closed_issues_count: Type.Integer(),
  open_merge_requests_count: Type.Integer(),
  subscribed: Type.Boolean(),
})
export type PromotedLabelJson = Static<typeof PromotedLabelJson>

export const ProjectLabelListResponse = Type.Array(ProjectLabelJson)
export const GroupLabelListResponse = Type.Array(GroupLabelJson)
