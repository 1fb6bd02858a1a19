import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { UserBasicJson } from '../users/index.js'

// Request params (GL lib/api/notes.rb). The noteable is named by iid in the path under the name `noteable_id`,
// as GitLab declares it, so its type errors read "noteable_id is invalid".

/** Ids and iids as Grape's Integer reads them; ones beyond any stored row are simply not found. */
const RecordId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

export const ListNotesParams = Type.Object({
  id: Type.String(),
  noteable_id: RecordId,
  order_by: Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')], { default: 'created_at' }),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
  activity_filter: Type.Union([Type.Literal('all_notes'), Type.Literal('only_comments'), Type.Literal('only_activity')], {
    default: 'all_notes',
  }),
  ...paginationParams,
})
export type ListNotesParams = Static<typeof ListNotesParams>

export const NoteParams = Type.Object({
  id: Type.String(),
  noteable_id: RecordId,
  note_id: RecordId,
})

export const CreateNoteParams = Type.Object({
  id: Type.String(),
  noteable_id: RecordId,
  body: Type.String(),
  confidential: Type.Optional(Type.Boolean()),
  internal: Type.Optional(Type.Boolean()),
  created_at: Type.Optional(Type.String()),
  merge_request_diff_head_sha: Type.Optional(Type.String()),
})
export type CreateNoteParams = Static<typeof CreateNoteParams>

export const UpdateNoteParams = Type.Object({
  id: Type.String(),
  noteable_id: RecordId,
  note_id: RecordId,
  body: Type.Optional(Type.String()),
  confidential: Type.Optional(Type.Boolean()),
})
export type UpdateNoteParams = Static<typeof UpdateNoteParams>

// Response entity (GL lib/api/entities/note.rb), in its field order. Plain comments and system notes have no
// `type` and are not resolvable; a DiffNote adds `commit_id` and `position`, and a resolvable note (a merge request's
// DiffNote or DiscussionNote) the resolved_* fields.

/** GL Gitlab::Diff::Position#to_h for a text position. */
export const DiffPositionJson = Type.Object(
  {
    base_sha: Nullable(Type.String()),
    start_sha: Nullable(Type.String()),
    head_sha: Nullable(Type.String()),
    old_path: Nullable(Type.String()),
    new_path: Nullable(Type.String()),
    position_type: Type.String(),
    old_line: Nullable(Type.Integer()),
    new_line: Nullable(Type.Integer()),
    line_range: Nullable(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
)

export const NoteJson = Type.Object({
  id: Type.Integer(),
  type: Nullable(Type.String()),
  body: Type.String(),
  attachment: Nullable(Type.String()),
  author: UserBasicJson,
  created_at: Type.String(),
  updated_at: Type.String(),
  system: Type.Boolean(),
  noteable_id: Type.Integer(),
  noteable_type: Type.String(),
  project_id: Type.Integer(),
  commit_id: Type.Optional(Nullable(Type.String())),
  position: Type.Optional(Nullable(DiffPositionJson)),
  resolvable: Type.Boolean(),
  resolved: Type.Optional(Type.Boolean()),
  resolved_by: Type.Optional(Nullable(UserBasicJson)),
  resolved_at: Type.Optional(Nullable(Type.String())),
  confidential: Type.Boolean(),
  internal: Type.Boolean(),
  imported: Type.Boolean(),
  imported_from: Type.String(),
  noteable_iid: Nullable(Type.Integer()),
  commands_changes: Type.Object({}, { additionalProperties: true }),
})
export type NoteJson = Static<typeof NoteJson>

export const NoteListResponse = Type.Array(NoteJson)

/** GL Entities::Discussion. */
export const DiscussionJson = Type.Object({
  id: Type.String(),
  individual_note: Type.Boolean(),
  notes: Type.Array(NoteJson),
})
export type DiscussionJson = Static<typeof DiscussionJson>

/** GL Entities::NoteCommands: the answer (202) to a comment that held only quick actions. */
export const NoteCommandsJson = Type.Object({
  commands_changes: Type.Object({}, { additionalProperties: true }),
  summary: Type.Array(Type.String()),
})
