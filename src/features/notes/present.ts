import type { User } from '../../core/caller.js'
import type { NoteRow } from '../../db/schema.js'
import { presentUserBasic, type PresentOptions } from '../users/index.js'
import type { NoteJson } from './schemas.js'
import { isResolvable } from './thread-ids.js'
import type { NoteView } from './service.js'

/** GL Entities::Note for a comment, a thread's note or a system note on an issue or merge request. */
export function presentNote(view: NoteView, options: PresentOptions): NoteJson {
  const { noteable } = view.noteable
  return presentNoteRow(view.row, view.author, { id: noteable.id, type: noteable.type, iid: view.noteable.iid }, options, view.resolvedBy)
}

/** GL Entities::Note from a note's row, its author and what it is attached to (events embed notes this way too). */
export function presentNoteRow(
  row: NoteRow,
  author: User,
  noteable: { id: number; type: string; iid: number | null },
  options: PresentOptions,
  resolvedBy: User | null = null,
): NoteJson {
  const internal = row.internal === 1
  const json: NoteJson = {
    id: row.id,
    type: row.type,
    body: row.body,
    attachment: null,
    author: presentUserBasic(author, options),
    created_at: row.created_at,
    updated_at: row.updated_at,
    system: row.system === 1,
    noteable_id: noteable.id,
    noteable_type: noteable.type,
    project_id: row.project_id,
    resolvable: false,
    confidential: internal,
    internal,
    imported: false,
    imported_from: 'none',
    noteable_iid: noteable.iid,
    commands_changes: {},
  }
  if (row.type === 'DiffNote') {
    // GL Entities::Note: `commit_id` for a merge request's DiffNote, then the position without ignore_whitespace_change.
    if (noteable.type === 'MergeRequest') json.commit_id = null
    json.position = positionOf(row.position)
  }
  if (isResolvable(row)) {
    json.resolvable = true
    json.resolved = row.resolved_at !== null
    json.resolved_by = resolvedBy ? presentUserBasic(resolvedBy, options) : null
    json.resolved_at = row.resolved_at
  }
  return json
}

function positionOf(text: string | null): NoteJson['position'] {
  if (text === null) return null
  try {
    return JSON.parse(text) as NoteJson['position']
  } catch {
    return null
  }
}
