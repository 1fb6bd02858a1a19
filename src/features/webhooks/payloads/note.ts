import type { Change } from '../../../core/changes.js'
import type { Context } from '../../../core/context.js'
import type { Db } from '../../../db/index.js'
import { absoluteImageUrls, findHookProject, projectHookAttrs, repositoryHookAttrs, userHookAttrs } from './common.js'
import { rubyUtc } from './formats.js'
import type { HookPayload } from './index.js'
import { issueHookAttrs, issueUrl } from './issue.js'
import { findHookIssue, findHookMergeRequest, findHookNote, findHookUsers } from './issuable-store.js'
import { mergeRequestHookAttrs } from './merge-request.js'

// A comment written or edited (GL Notes::PostProcessService#execute_note_hooks and Notes::UpdateService, with
// Gitlab::DataBuilder::Note): only people's comments, never system notes, and always in the name of its author.

function positionOf(stored: string | null): unknown {
  return stored === null ? null : JSON.parse(stored)
}

/**
 * What a comment's change sends: `Note Hook` for `note_events`, or for `confidential_note_events` (its `event_type`
 * then `confidential_note`) when the comment is internal or its issue confidential. System hooks hear no comments.
 */
export async function notePayloads(ctx: Context, trx: Db, change: Extract<Change, { kind: 'note' }>): Promise<HookPayload[]> {
  const note = await findHookNote(trx, change.noteId)
  if (!note || note.system === 1) return []
  const source = await findHookProject(trx, note.project_id)
  const [author] = await findHookUsers(trx, [note.author_id])
  if (!source || !author) return []
  const { externalUrl } = ctx.config
  let noteable: { key: 'issue' | 'merge_request'; attrs: Record<string, unknown>; url: string; confidential: boolean }
  if (note.issue_id !== null) {
    const issue = await findHookIssue(trx, note.issue_id)
    if (!issue) return []
    const attrs = await issueHookAttrs(ctx, trx, issue, source)
    noteable = { key: 'issue', attrs, url: issueUrl(issue, source.project.full_path, externalUrl), confidential: issue.confidential === 1 }
  } else if (note.merge_request_id !== null) {
    const row = await findHookMergeRequest(trx, note.merge_request_id)
    if (!row) return []
    const attrs = await mergeRequestHookAttrs(ctx, trx, row, source)
    noteable = { key: 'merge_request', attrs, url: attrs.url, confidential: false }
  } else {
    return []
  }
  const project = projectHookAttrs(source, externalUrl)
  const position = positionOf(note.position)
  const confidential = note.internal === 1 || noteable.confidential
  const body = {
    object_kind: 'note',
    event_type: confidential ? 'confidential_note' : 'note',
    user: userHookAttrs(author),
    project_id: source.project.id,
    project,
    // GL Gitlab::HookData::NoteBuilder: the note's safe columns, its text with absolute image links, and its address.
    object_attributes: {
      attachment: null,
      author_id: note.author_id,
      change_position: null,
      commit_id: null,
      created_at: rubyUtc(note.created_at),
      discussion_id: note.discussion_id,
      id: note.id,
      line_code: note.line_code,
      note: note.body,
      noteable_id: note.issue_id ?? note.merge_request_id,
      noteable_type: noteable.key === 'issue' ? 'Issue' : 'MergeRequest',
      original_position: position,
      position,
      project_id: note.project_id,
      resolved_at: note.resolved_at === null ? null : rubyUtc(note.resolved_at),
      resolved_by_id: note.resolved_by_id,
      resolved_by_push: null,
      st_diff: null,
      system: false,
      type: note.type,
      updated_at: rubyUtc(note.updated_at),
      updated_by_id: note.updated_by_id,
      description: absoluteImageUrls(note.body, source.project.full_path, externalUrl),
      url: `${noteable.url}#note_${note.id}`,
      action: change.action,
    },
    repository: repositoryHookAttrs(project),
    [noteable.key]: noteable.attrs,
  }
  return [{ event: 'Note Hook', trigger: confidential ? 'confidential_note_events' : 'note_events', scope: 'project', body }]
}
