import { createHash, randomBytes } from 'node:crypto'
import type { NoteRow } from '../../db/schema.js'

/** A new thread's id: 40 hex digits, as GitLab's are. */
export function newDiscussionId(): string {
  return randomBytes(20).toString('hex')
}

/** A note's thread; notes written before threads were kept each get one of their own, derived from the note. */
export function discussionIdOf(row: Pick<NoteRow, 'id' | 'discussion_id'>): string {
  return row.discussion_id ?? createHash('sha1').update(`note-${row.id}`).digest('hex')
}

/** GL Note#resolvable?: a DiffNote or DiscussionNote of a merge request, never a system note. */
export function isResolvable(row: Pick<NoteRow, 'type' | 'system' | 'merge_request_id'>): boolean {
  return row.system !== 1 && row.merge_request_id !== null && (row.type === 'DiffNote' || row.type === 'DiscussionNote')
}
