import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

// Response entities (GL lib/api/entities/commit.rb, commit_stats.rb, commit_detail.rb), in GitLab's field order.

export const CommitJson = Type.Object({
  id: Type.String(),
  short_id: Type.String(),
  created_at: Type.String(),
  parent_ids: Type.Array(Type.String()),
  title: Type.String(),
  message: Type.String(),
  author_name: Type.String(),
  author_email: Type.String(),
  authored_date: Type.String(),
  committer_name: Type.String(),
  committer_email: Type.String(),
  committed_date: Type.String(),
  trailers: Type.Record(Type.String(), Type.String()),
  extended_trailers: Type.Record(Type.String(), Type.Array(Type.String())),
  web_url: Type.String(),
})
export type CommitJson = Static<typeof CommitJson>

export const CommitStatsJson = Type.Object({
  additions: Type.Integer(),
  deletions: Type.Integer(),
  total: Type.Integer(),
})
export type CommitStatsJson = Static<typeof CommitStatsJson>

/** `stats` is left out when the caller sends `stats=false`; svc runs no pipelines, so status and last_pipeline are null. */
export const CommitDetailJson = Type.Object({
  ...CommitJson.properties,
  stats: Type.Optional(CommitStatsJson),
  status: Nullable(Type.String()),
  project_id: Type.Integer(),
  last_pipeline: Type.Null(),
})
export type CommitDetailJson = Static<typeof CommitDetailJson>

/** GL Entities::Commit, or Entities::CommitWithStats (its stats after it) for lists with `with_stats=true`. */
export const CommitWithStatsJson = Type.Object({
  ...CommitJson.properties,
  stats: Type.Optional(CommitStatsJson),
})
export type CommitWithStatsJson = Static<typeof CommitWithStatsJson>

export const CommitListResponse = Type.Array(CommitWithStatsJson)

/** GL Entities::Diff, in its field order. */
export const DiffJson = Type.Object({
  diff: Type.String(),
  collapsed: Type.Boolean(),
  too_large: Type.Boolean(),
  new_path: Type.String(),
  old_path: Type.String(),
  a_mode: Type.String(),
  b_mode: Type.String(),
  new_file: Type.Boolean(),
  renamed_file: Type.Boolean(),
  deleted_file: Type.Boolean(),
  generated_file: Type.Boolean(),
})
export type DiffJson = Static<typeof DiffJson>

/** GL Entities::BasicRef. */
export const CommitRefJson = Type.Object({ type: Type.String(), name: Type.String() })
export type CommitRefJson = Static<typeof CommitRefJson>

// Request params (GL lib/api/commits.rb).

export const ListCommitsParams = Type.Object({
  id: Type.String(),
  ref_name: Type.Optional(Type.String()),
  since: Type.Optional(Type.String({ format: 'date-time' })),
  until: Type.Optional(Type.String({ format: 'date-time' })),
  path: Type.Optional(Type.String()),
  author: Type.Optional(Type.String()),
  all: Type.Optional(Type.Boolean()),
  with_stats: Type.Optional(Type.Boolean()),
  first_parent: Type.Optional(Type.Boolean()),
  order: Type.Union([Type.Literal('default'), Type.Literal('topo')], { default: 'default' }),
  trailers: Type.Boolean({ default: false }),
  ...paginationParams,
})
export type ListCommitsParams = Static<typeof ListCommitsParams>

export const ShowCommitParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  stats: Type.Boolean({ default: true }),
})

export const CommitPageParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  ...paginationParams,
})

export const CommitDiffParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  unidiff: Type.Boolean({ default: false }),
  ...paginationParams,
})

export const CommitRefsParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
  type: Type.Union([Type.Literal('branch'), Type.Literal('tag'), Type.Literal('all')], { default: 'all' }),
  ...paginationParams,
})

/** GL Entities::Compare. */
export const CompareJson = Type.Object({
  commit: Nullable(CommitJson),
  commits: Type.Array(CommitJson),
  diffs: Type.Array(DiffJson),
  compare_timeout: Type.Boolean(),
  compare_same_ref: Type.Boolean(),
  web_url: Type.String(),
})
export type CompareJson = Static<typeof CompareJson>

export const CompareParams = Type.Object({
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  from_project_id: Type.Optional(Type.String()),
  straight: Type.Boolean({ default: false }),
  unidiff: Type.Boolean({ default: false }),
})
