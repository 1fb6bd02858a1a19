import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import {
  IdListParam,
  issuableFilterParams,
  UserFilterParam,
  LabelListParam,
  LabelsJson,
  ReferencesJson,
  TaskCompletionJson,
  TimeStatsJson,
} from '../issuables/index.js'
import { CommitJson, DiffJson } from '../commits/index.js'
import { MilestoneJson } from '../milestones/index.js'
import { UserBasicJson } from '../users/index.js'

// Request params (GL lib/api/merge_requests.rb).

/** GL MergeRequests.sort_options. */
export const MERGE_REQUEST_ORDERS = [
  'created_at',
  'label_priority',
  'milestone_due',
  'popularity',
  'priority',
  'title',
  'updated_at',
  'merged_at',
] as const
export type MergeRequestOrder = (typeof MERGE_REQUEST_ORDERS)[number]

export const ListMergeRequestsParams = Type.Object({
  id: Type.Optional(Type.String()),
  state: Type.Union(
    ['opened', 'closed', 'locked', 'merged', 'all'].map((s) => Type.Literal(s)),
    { default: 'all' },
  ),
  ...issuableFilterParams,
  reviewer_id: Type.Optional(UserFilterParam),
  reviewer_username: Type.Optional(Type.String()),
  source_branch: Type.Optional(Type.String()),
  target_branch: Type.Optional(Type.String()),
  order_by: Type.Union(
    MERGE_REQUEST_ORDERS.map((o) => Type.Literal(o)),
    { default: 'created_at' },
  ),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
  ...paginationParams,
})
export type ListMergeRequestsParams = Static<typeof ListMergeRequestsParams>

export const MergeRequestParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
})

/** GET /projects/:id/merge_requests/:merge_request_iid. */
export const ShowMergeRequestParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  render_html: Type.Optional(Type.Boolean()),
  include_rebase_in_progress: Type.Optional(Type.Boolean()),
})

const mergeRequestAttributes = {
  description: Type.Optional(Nullable(Type.String())),
  assignee_id: Type.Optional(Type.Integer()),
  assignee_ids: Type.Optional(IdListParam),
  reviewer_ids: Type.Optional(IdListParam),
  labels: Type.Optional(LabelListParam),
  add_labels: Type.Optional(LabelListParam),
  remove_labels: Type.Optional(LabelListParam),
  milestone_id: Type.Optional(Nullable(Type.Integer())),
  remove_source_branch: Type.Optional(Type.Boolean()),
  squash: Type.Optional(Type.Boolean()),
}

export const CreateMergeRequestParams = Type.Object({
  id: Type.String(),
  source_branch: Type.String(),
  target_branch: Type.String(),
  title: Type.String(),
  target_project_id: Type.Optional(Type.Integer()),
  ...mergeRequestAttributes,
})
export type CreateMergeRequestParams = Static<typeof CreateMergeRequestParams>

export const UpdateMergeRequestParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  title: Type.Optional(Type.String()),
  target_branch: Type.Optional(Type.String()),
  state_event: Type.Optional(Type.Union([Type.Literal('close'), Type.Literal('reopen')])),
  discussion_locked: Type.Optional(Type.Boolean()),
  ...mergeRequestAttributes,
})
export type UpdateMergeRequestParams = Static<typeof UpdateMergeRequestParams>

/** PUT /projects/:id/merge_requests/:merge_request_iid/merge. */
export const MergeMergeRequestParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  merge_commit_message: Type.Optional(Type.String()),
  squash_commit_message: Type.Optional(Type.String()),
  should_remove_source_branch: Type.Optional(Type.Boolean()),
  merge_when_pipeline_succeeds: Type.Optional(Type.Boolean()),
  auto_merge: Type.Optional(Type.Boolean()),
  sha: Type.Optional(Type.String()),
  squash: Type.Optional(Type.Boolean()),
})

/** PUT /projects/:id/merge_requests/:merge_request_iid/rebase. */
export const RebaseMergeRequestParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  skip_ci: Type.Optional(Type.Boolean()),
})

/** GL MergeRequests.update_params_at_least_one_of, in its order. */
export const UPDATE_MERGE_REQUEST_ANY_OF = [
  'assignee_id',
  'assignee_ids',
  'reviewer_ids',
  'description',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'remove_source_branch',
  'allow_collaboration',
  'allow_maintainer_to_push',
  'squash',
  'target_branch',
  'title',
  'state_event',
  'discussion_locked',
] as const

// Response entities (GL lib/api/entities/merge_request_basic.rb, merge_request.rb), in GitLab's field order.

export const MergeRequestBasicJson = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  merged_by: Nullable(UserBasicJson),
  merge_user: Nullable(UserBasicJson),
  merged_at: Nullable(Type.String()),
  closed_by: Nullable(UserBasicJson),
  closed_at: Nullable(Type.String()),
  // Only with `render_html=true` on the single merge request.
  title_html: Type.Optional(Type.String()),
  description_html: Type.Optional(Type.String()),
  target_branch: Type.String(),
  source_branch: Type.String(),
  user_notes_count: Type.Integer(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  author: UserBasicJson,
  assignees: Type.Array(UserBasicJson),
  assignee: Nullable(UserBasicJson),
  reviewers: Type.Array(UserBasicJson),
  source_project_id: Type.Integer(),
  target_project_id: Type.Integer(),
  labels: LabelsJson,
  draft: Type.Boolean(),
  imported: Type.Boolean(),
  imported_from: Type.String(),
  work_in_progress: Type.Boolean(),
  milestone: Nullable(MilestoneJson),
  merge_when_pipeline_succeeds: Type.Boolean(),
  merge_status: Type.String(),
  detailed_merge_status: Type.String(),
  merge_after: Nullable(Type.String()),
  sha: Nullable(Type.String()),
  merge_commit_sha: Nullable(Type.String()),
  squash_commit_sha: Nullable(Type.String()),
  discussion_locked: Nullable(Type.Boolean()),
  should_remove_source_branch: Nullable(Type.Boolean()),
  force_remove_source_branch: Nullable(Type.Boolean()),
  prepared_at: Nullable(Type.String()),
  reference: Type.String(),
  references: ReferencesJson,
  web_url: Type.String(),
  time_stats: TimeStatsJson,
  squash: Type.Boolean(),
  squash_on_merge: Type.Boolean(),
  task_completion_status: TaskCompletionJson,
  has_conflicts: Type.Boolean(),
  blocking_discussions_resolved: Type.Boolean(),
})
export type MergeRequestBasicJson = Static<typeof MergeRequestBasicJson>

export const MergeRequestJson = Type.Object({
  ...MergeRequestBasicJson.properties,
  subscribed: Type.Boolean(),
  changes_count: Nullable(Type.String()),
  latest_build_started_at: Type.Optional(Nullable(Type.String())),
  latest_build_finished_at: Type.Optional(Nullable(Type.String())),
  first_deployed_to_production_at: Type.Optional(Nullable(Type.String())),
  pipeline: Type.Optional(Type.Null()),
  head_pipeline: Type.Optional(Type.Null()),
  diff_refs: Nullable(Type.Object({ base_sha: Nullable(Type.String()), head_sha: Type.String(), start_sha: Type.String() })),
  merge_error: Nullable(Type.String()),
  // Only with `include_rebase_in_progress=true`.
  rebase_in_progress: Type.Optional(Type.Boolean()),
  first_contribution: Type.Boolean(),
  user: Type.Object({ can_merge: Type.Boolean() }),
})
export type MergeRequestJson = Static<typeof MergeRequestJson>

export const MergeRequestListResponse = Type.Array(MergeRequestBasicJson)

// Review data (GL lib/api/merge_requests.rb changes, diffs, raw_diffs, commits; merge_request_diffs.rb versions).

export const MergeRequestChangesParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  access_raw_diffs: Type.Boolean({ default: false }),
  unidiff: Type.Boolean({ default: false }),
})

export const MergeRequestDiffsParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  unidiff: Type.Boolean({ default: false }),
  ...paginationParams,
})

export const MergeRequestPageParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  ...paginationParams,
})

/** GL Entities::MergeRequestReviewer. */
export const MergeRequestReviewerJson = Type.Object({ user: UserBasicJson, state: Type.String(), created_at: Type.String() })

export const MergeRequestVersionParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  version_id: Type.Integer(),
  unidiff: Type.Boolean({ default: false }),
})

export const CommitMergeRequestsParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  state: Type.Optional(Type.Union(['opened', 'closed', 'locked', 'merged', 'all'].map((s) => Type.Literal(s)))),
  ...paginationParams,
})

/** GL Entities::MergeRequestChanges: the merge request entity, its diff as `changes`, and `overflow`. */
export const MergeRequestChangesJson = Type.Object({
  ...MergeRequestJson.properties,
  changes: Type.Array(DiffJson),
  overflow: Type.Boolean(),
})
export type MergeRequestChangesJson = Static<typeof MergeRequestChangesJson>

/** GL Entities::MergeRequestDiff. */
export const MergeRequestDiffJson = Type.Object({
  id: Type.Integer(),
  head_commit_sha: Type.String(),
  base_commit_sha: Nullable(Type.String()),
  start_commit_sha: Type.String(),
  created_at: Type.String(),
  merge_request_id: Type.Integer(),
  state: Type.String(),
  real_size: Nullable(Type.String()),
  patch_id_sha: Nullable(Type.String()),
})
export type MergeRequestDiffJson = Static<typeof MergeRequestDiffJson>

/** GL Entities::MergeRequestDiffFull: a version with its commits (newest first) and diffs. */
export const MergeRequestDiffFullJson = Type.Object({
  ...MergeRequestDiffJson.properties,
  commits: Type.Array(CommitJson),
  diffs: Type.Array(DiffJson),
})
export type MergeRequestDiffFullJson = Static<typeof MergeRequestDiffFullJson>

// Threads of a merge request (GL lib/api/discussions.rb): the merge request is named by iid under `noteable_id`, as
// GitLab declares it.

const NoteableId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

export const ListDiscussionsParams = Type.Object({
  id: Type.String(),
  noteable_id: NoteableId,
  ...paginationParams,
})

export const DiscussionParams = Type.Object({
  id: Type.String(),
  noteable_id: NoteableId,
  discussion_id: Type.String(),
})

/** `position[...]`: its four required fields are checked by the route, each reported as a missing param. */
export const DiffPositionParams = Type.Object({
  base_sha: Type.Optional(Type.String()),
  start_sha: Type.Optional(Type.String()),
  head_sha: Type.Optional(Type.String()),
  position_type: Type.Optional(Type.String()),
  new_path: Type.Optional(Type.String()),
  old_path: Type.Optional(Type.String()),
  new_line: Type.Optional(Type.Integer()),
  old_line: Type.Optional(Type.Integer()),
})

export const CreateDiscussionParams = Type.Object({
  id: Type.String(),
  noteable_id: NoteableId,
  body: Type.String(),
  created_at: Type.Optional(Type.String()),
  position: Type.Optional(DiffPositionParams),
})

export const ReplyToDiscussionParams = Type.Object({
  id: Type.String(),
  noteable_id: NoteableId,
  discussion_id: Type.String(),
  body: Type.String(),
  created_at: Type.Optional(Type.String()),
})

export const ResolveDiscussionParams = Type.Object({
  id: Type.String(),
  noteable_id: NoteableId,
  discussion_id: Type.String(),
  resolved: Type.Boolean(),
})

export const MergeRequestIidParams = Type.Object({ id: Type.String(), merge_request_iid: Type.Integer() })

export const ApproveMergeRequestParams = Type.Object({
  id: Type.String(),
  merge_request_iid: Type.Integer(),
  sha: Type.Optional(Type.String()),
})

/** GL Entities::MergeRequestApprovals (Free): the caller's part first, then who approved (GL Entities::Approvals). */
export const MergeRequestApprovalsJson = Type.Object({
  user_has_approved: Type.Boolean(),
  user_can_approve: Type.Boolean(),
  approved: Type.Boolean(),
  approved_by: Type.Array(Type.Object({ user: UserBasicJson, approved_at: Type.String() })),
})
export type MergeRequestApprovalsJson = Static<typeof MergeRequestApprovalsJson>
