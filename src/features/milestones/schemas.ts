import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

// Request params (GL lib/api/project_milestones.rb with lib/api/milestone_responses.rb). Milestones are named by
// their global id in paths, as GitLab does.

const RecordId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

export const ListMilestonesParams = Type.Object({
  id: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('closed'), Type.Literal('all')], { default: 'all' }),
  iids: Type.Optional(Type.Array(RecordId, { commaSeparated: true })),
  title: Type.Optional(Type.String()),
  search: Type.Optional(Type.String()),
  search_title: Type.Optional(Type.String()),
  include_parent_milestones: Type.Boolean({ default: false }),
  include_ancestors: Type.Boolean({ default: false }),
  updated_before: Type.Optional(Type.String({ format: 'date-time' })),
  updated_after: Type.Optional(Type.String({ format: 'date-time' })),
  ...paginationParams,
})
export type ListMilestonesParams = Static<typeof ListMilestonesParams>

export const MilestoneParams = Type.Object({
  id: Type.String(),
  milestone_id: RecordId,
})

export const MilestoneIssuablesParams = Type.Object({
  id: Type.String(),
  milestone_id: RecordId,
  ...paginationParams,
})
export type MilestoneIssuablesParams = Static<typeof MilestoneIssuablesParams>

export const CreateMilestoneParams = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  due_date: Type.Optional(Type.String()),
  start_date: Type.Optional(Type.String()),
})
export type CreateMilestoneParams = Static<typeof CreateMilestoneParams>

export const UpdateMilestoneParams = Type.Object({
  id: Type.String(),
  milestone_id: RecordId,
  title: Type.Optional(Type.String()),
  state_event: Type.Optional(Type.Union([Type.Literal('close'), Type.Literal('activate')])),
  description: Type.Optional(Type.String()),
  due_date: Type.Optional(Type.String()),
  start_date: Type.Optional(Type.String()),
})
export type UpdateMilestoneParams = Static<typeof UpdateMilestoneParams>

// Response entity (GL lib/api/entities/milestone.rb). `group_id` is exposed only for group milestones, which
// svc does not have.

export const MilestoneJson = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  due_date: Nullable(Type.String()),
  start_date: Nullable(Type.String()),
  expired: Type.Boolean(),
  web_url: Type.String(),
})
export type MilestoneJson = Static<typeof MilestoneJson>

export const MilestoneListResponse = Type.Array(MilestoneJson)
