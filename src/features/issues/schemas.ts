import { Type, type Static } from '@sinclair/typebox'
import { keysetParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import {
  IdListParam,
  issuableFilterParams,
  LabelListParam,
  LabelsJson,
  ReferencesJson,
  TaskCompletionJson,
  TimeStatsJson,
} from '../issuables/index.js'
import { MilestoneJson } from '../milestones/index.js'
import { UserBasicJson } from '../users/index.js'

// Request params (GL lib/api/issues.rb). `id` is a project or group id or URL-encoded path.

/** GL issues.rb sort options; `id` as the contract's keyset table allows it. */
export const ISSUE_ORDER_COLUMNS = [
  'created_at',
  'due_date',
  'label_priority',
  'milestone_due',
  'popularity',
  'priority',
  'relative_position',
  'title',
  'updated_at',
  'weight',
  'id',
] as const
export type IssueOrder = (typeof ISSUE_ORDER_COLUMNS)[number]

/** Orders a keyset page of project issues may follow (spec: Pagination, keyset table). */
export const ISSUE_KEYSET_ORDERS: readonly IssueOrder[] = [
  'created_at',
  'updated_at',
  'title',
  'id',
  'weight',
  'due_date',
  'relative_position',
]

/** WorkItems::Type.allowed_types_for_issues. */
export const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'task'] as const
const IssueTypeParam = Type.Union(ISSUE_TYPES.map((t) => Type.Literal(t)))

export const ListIssuesParams = Type.Object({
  id: Type.Optional(Type.String()),
  state: Type.Union(
    ['opened', 'closed', 'all'].map((s) => Type.Literal(s)),
    { default: 'all' },
  ),
  ...issuableFilterParams,
  confidential: Type.Optional(Type.Boolean()),
  issue_type: Type.Optional(IssueTypeParam),
  due_date: Type.Optional(Type.String()),
  ...keysetParams(ISSUE_ORDER_COLUMNS, 'created_at'),
})
export type ListIssuesParams = Static<typeof ListIssuesParams>

export const IssueParams = Type.Object({
  id: Type.String(),
  issue_iid: Type.Integer(),
})

/** GL `issue_params`: what create and update share. */
const issueAttributes = {
  description: Type.Optional(Nullable(Type.String())),
  assignee_ids: Type.Optional(IdListParam),
  assignee_id: Type.Optional(Type.Integer()),
  milestone_id: Type.Optional(Nullable(Type.Integer())),
  labels: Type.Optional(LabelListParam),
  add_labels: Type.Optional(LabelListParam),
  remove_labels: Type.Optional(LabelListParam),
  due_date: Type.Optional(Nullable(Type.String())),
  confidential: Type.Optional(Type.Boolean()),
  discussion_locked: Type.Optional(Type.Boolean()),
  issue_type: Type.Optional(IssueTypeParam),
}

export const CreateIssueParams = Type.Object({
  id: Type.String(),
  title: Type.String(),
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  iid: Type.Optional(Type.Integer()),
  ...issueAttributes,
})
export type CreateIssueParams = Static<typeof CreateIssueParams>

export const UpdateIssueParams = Type.Object({
  id: Type.String(),
  issue_iid: Type.Integer(),
  title: Type.Optional(Type.String()),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  state_event: Type.Optional(Type.Union([Type.Literal('reopen'), Type.Literal('close')])),
  ...issueAttributes,
})
export type UpdateIssueParams = Static<typeof UpdateIssueParams>

/** GL `at_least_one_of` on PUT /projects/:id/issues/:issue_iid, in its order. */
export const UPDATE_ISSUE_ANY_OF = [
  'title',
  'description',
  'assignee_ids',
  'assignee_id',
  'milestone_id',
  'discussion_locked',
  'labels',
  'add_labels',
  'remove_labels',
  'created_at',
  'due_date',
  'confidential',
  'state_event',
  'issue_type',
] as const

// Response entity (GL lib/api/entities/issuable_entity.rb, issue_basic.rb, issue.rb), in GitLab's field order.

export const IssueBasicJson = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  closed_at: Nullable(Type.String()),
  closed_by: Nullable(UserBasicJson),
  labels: LabelsJson,
  milestone: Nullable(MilestoneJson),
  assignees: Type.Array(UserBasicJson),
  author: UserBasicJson,
  type: Type.String(),
  assignee: Nullable(UserBasicJson),
  user_notes_count: Type.Integer(),
  merge_requests_count: Type.Integer(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  due_date: Nullable(Type.String()),
  confidential: Type.Boolean(),
  discussion_locked: Nullable(Type.Boolean()),
  issue_type: Type.String(),
  web_url: Type.String(),
  time_stats: TimeStatsJson,
  task_completion_status: TaskCompletionJson,
})
export type IssueBasicJson = Static<typeof IssueBasicJson>

export const IssueJson = Type.Object({
  ...IssueBasicJson.properties,
  has_tasks: Type.Boolean(),
  task_status: Type.Optional(Type.String()),
  _links: Type.Object({
    self: Type.String(),
    notes: Type.String(),
    award_emoji: Type.String(),
    project: Type.String(),
    closed_as_duplicate_of: Nullable(Type.String()),
  }),
  references: ReferencesJson,
  severity: Type.String(),
  subscribed: Type.Optional(Type.Boolean()),
  moved_to_id: Nullable(Type.Integer()),
  imported: Type.Boolean(),
  imported_from: Type.String(),
  service_desk_reply_to: Nullable(Type.String()),
})
export type IssueJson = Static<typeof IssueJson>

export const IssueListResponse = Type.Array(IssueJson)
export const IssueBasicListResponse = Type.Array(IssueBasicJson)
