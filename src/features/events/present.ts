import type { User } from '../../core/caller.js'
import type { EventRow, NoteRow, PushEventPayloadRow } from '../../db/schema.js'
import { presentNoteRow, type NoteJson } from '../notes/index.js'
import { presentUserBasic, type PresentOptions } from '../users/index.js'
import { EventAction } from '../../core/event-actions.js'
import type { EventJson } from './schemas.js'
import type { EventTargets } from './service.js'

export interface EventPresentOptions extends PresentOptions {
  /** Project event lists add `data: null` to note events (spec § Contribution event). */
  projectList: boolean
}

/** GL Event#action_name: the first matching rule wins (gitlab-behaviour-resources § 7.1). */
export function actionNameOf(event: Pick<EventRow, 'action' | 'target_type'>, push?: Pick<PushEventPayloadRow, 'action'>): string {
  switch (event.action) {
    case EventAction.pushed:
      return push?.action === 'created' ? 'pushed new' : push?.action === 'removed' ? 'deleted' : 'pushed to'
    case EventAction.closed:
      return 'closed'
    case EventAction.merged:
      return 'accepted'
    case EventAction.joined:
      return 'joined'
    case EventAction.left:
      return 'left'
    case EventAction.expired:
      return 'removed due to membership expiration from'
    case EventAction.destroyed:
      return 'destroyed'
    case EventAction.commented:
      return 'commented on'
    case EventAction.approved:
      return 'approved'
  }
  // Projects are never imported, so creating one reads "created"; every other event "opened" (GL `created_project_action_name`).
  if (event.action === EventAction.created && event.target_type === null) return 'created'
  return 'opened'
}

/** The iid of targets that have one, else the target id (GL Event#target_iid). */
function targetOf(event: EventRow, targets: EventTargets): { iid: number | null; title: string | null } {
  const id = event.target_id
  if (id === null) return { iid: null, title: null }
  const found =
    event.target_type === 'Issue'
      ? targets.issues.get(id)
      : event.target_type === 'MergeRequest'
        ? targets.mergeRequests.get(id)
        : event.target_type === 'Milestone'
          ? targets.milestones.get(id)
          : undefined
  return found ? { iid: found.iid, title: found.title } : { iid: id, title: null }
}

/** GL API::Entities::Note as an event embeds it; `noteable_iid` comes from the issue or merge request. */
export function presentEventNote(note: NoteRow, author: User, targets: EventTargets, options: PresentOptions): NoteJson {
  const noteable =
    note.issue_id !== null
      ? { id: note.issue_id, type: 'Issue', iid: targets.issues.get(note.issue_id)?.iid ?? null }
      : {
          id: note.merge_request_id as number,
          type: 'MergeRequest',
          iid: targets.mergeRequests.get(note.merge_request_id as number)?.iid ?? null,
        }
  return presentNoteRow(note, author, noteable, options)
}

/** GL API::Entities::Event, fields in its order, with the contract's `title` and `data`. */
export function presentEvent(event: EventRow, targets: EventTargets, options: EventPresentOptions): EventJson {
  const author = targets.users.get(event.author_id)
  const target = targetOf(event, targets)
  const note = event.target_type === 'Note' && event.target_id !== null ? targets.notes.get(event.target_id) : undefined
  const noteAuthor = note ? targets.users.get(note.author_id) : undefined
  const push = event.action === EventAction.pushed ? targets.pushPayloads.get(event.id) : undefined
  const json: EventJson = {
    id: event.id,
    title: null,
    project_id: event.project_id,
    action_name: actionNameOf(event, push),
    target_id: event.target_id,
    target_iid: target.iid,
    target_type: event.target_type,
    author_id: event.author_id,
  } as EventJson
  if (note && options.projectList) json.data = null
  json.target_title = target.title
  json.created_at = event.created_at
  if (note && noteAuthor) json.note = presentEventNote(note, noteAuthor, targets, options)
  if (author) json.author = presentUserBasic(author, options)
  // GL API::Entities::PushEventPayload; single-ref pushes have no ref_count.
  if (push) {
    json.push_data = {
      commit_count: push.commit_count,
      action: push.action,
      ref_type: push.ref_type,
      commit_from: push.commit_from,
      commit_to: push.commit_to,
      ref: push.ref,
      commit_title: push.commit_title,
      ref_count: null,
    }
  }
  json.imported = false
  json.imported_from = 'none'
  json.author_username = author?.username ?? null
  return json
}
