import { Type, type Static } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'

// Request params and response entities (GL lib/api/files.rb, lib/api/entities/blame_range*.rb).
// `:file_path` is the URL-encoded path of a file; `:id` a project id or URL-encoded full path.

export const ReadFileParams = Type.Object({
  id: Type.String(),
  file_path: Type.String(),
  ref: Type.String(),
})
export type ReadFileParams = Static<typeof ReadFileParams>

/** `ref` defaults to HEAD; `lfs` is read and ignored (svc stores no LFS objects). */
export const RawFileParams = Type.Object({
  id: Type.String(),
  file_path: Type.String(),
  ref: Type.Optional(Type.String()),
  lfs: Type.Boolean({ default: false }),
})

export const BlameParams = Type.Object({
  id: Type.String(),
  file_path: Type.String(),
  ref: Type.String(),
  range: Type.Optional(
    Type.Object({
      start: Type.Optional(Type.Integer({ minimum: 1 })),
      end: Type.Optional(Type.Integer({ minimum: 1 })),
    }),
  ),
})

const simpleFileParams = {
  id: Type.String(),
  file_path: Type.String(),
  branch: Type.String(),
  commit_message: Type.String(),
  start_branch: Type.Optional(Type.String()),
  author_email: Type.Optional(Type.String()),
  author_name: Type.Optional(Type.String()),
}

/** POST and PUT: GL `extended_file_params`. */
export const WriteFileParams = Type.Object({
  ...simpleFileParams,
  // GitLab takes the key as given even when its value is null: an empty file.
  content: Nullable(Type.String()),
  encoding: Type.Union([Type.Literal('text'), Type.Literal('base64')], { default: 'text' }),
  last_commit_id: Type.Optional(Type.String()),
  execute_filemode: Type.Optional(Type.Boolean()),
})
export type WriteFileParams = Static<typeof WriteFileParams>

/** DELETE: GL `simple_file_params`, and `last_commit_id`, which svc checks as the delete service would. */
export const DeleteFileParams = Type.Object({
  ...simpleFileParams,
  last_commit_id: Type.Optional(Type.String()),
})
export type DeleteFileParams = Static<typeof DeleteFileParams>

/** GL files.rb `blob_data`, in its order, then the content. */
export const FileJson = Type.Object({
  file_name: Type.String(),
  file_path: Type.String(),
  size: Type.Integer(),
  encoding: Type.String(),
  content_sha256: Type.String(),
  ref: Type.String(),
  blob_id: Type.String(),
  commit_id: Type.String(),
  last_commit_id: Type.String(),
  execute_filemode: Type.Boolean(),
  content: Type.String(),
})
export type FileJson = Static<typeof FileJson>

/** GL files.rb `commit_response`. */
export const FileCommitJson = Type.Object({
  file_path: Type.String(),
  branch: Type.String(),
})

export const BlameRangeCommitJson = Type.Object({
  id: Type.String(),
  parent_ids: Type.Array(Type.String()),
  message: Type.String(),
  authored_date: Type.String(),
  author_name: Type.String(),
  author_email: Type.String(),
  committed_date: Type.String(),
  committer_name: Type.String(),
  committer_email: Type.String(),
})

export const BlameRangeJson = Type.Object({
  commit: BlameRangeCommitJson,
  lines: Type.Array(Type.String()),
})
export type BlameRangeJson = Static<typeof BlameRangeJson>

export const BlameListResponse = Type.Array(BlameRangeJson)
