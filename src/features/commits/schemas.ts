import { Type, type Static } from '@sinclair/typebox'
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
