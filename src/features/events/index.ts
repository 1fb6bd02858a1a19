import type { Db } from '../../db/index.js'
import { insertEvent } from './store.js'

/** Event actions and their stored numbers (GitLab Event::ACTIONS). */
export const EventAction = {
  created: 1,
  updated: 2,
  closed: 3,
  reopened: 4,
  pushed: 5,
  commented: 6,
  merged: 7,
  joined: 8,
  left: 9,
  destroyed: 10,
  expired: 11,
  approved: 12,
} as const
export type EventActionName = keyof typeof EventAction

/** Target types as stored and shown (GitLab's class names). */
export type EventTargetType = 'Issue' | 'MergeRequest' | 'Note' | 'Milestone' | 'Project' | 'Snippet' | 'User'

export interface NewEvent {
  projectId: number | null
  authorId: number
  action: EventActionName
  target: { type: EventTargetType; id: number } | null
  at: Date
}

/** Records a contribution event; call it inside the transaction of the action it describes. */
export async function recordEvent(trx: Db, event: NewEvent): Promise<void> {
  await insertEvent(trx, {
    project_id: event.projectId,
    author_id: event.authorId,
    action: EventAction[event.action],
    target_type: event.target?.type ?? null,
    target_id: event.target?.id ?? null,
    created_at: event.at.toISOString(),
  })
}
