import { isoDate } from '../../core/time.js'
import type { Db } from '../../db/index.js'
import { every, handle } from '../../jobs/index.js'
import { EventAction, type EventActionName, type EventTargetType } from '../../core/event-actions.js'
import { RemoveExpiredEvents } from './jobs.js'
import { removeExpiredEvents } from './retention.js'
import type { PushEventPayloadRow } from '../../db/schema.js'
import { clearEventTargets, findProjectMembershipsBelow, insertEvent, insertEvents, insertPushEventPayload } from './store.js'

export { removeExpiredEvents, retentionCutoff } from './retention.js'
export { RemoveExpiredEvents } from './jobs.js'

export interface NewEvent {
  projectId: number | null
  authorId: number
  action: EventActionName
  target: { type: EventTargetType; id: number } | null
  at: Date
}

/** The log of contribution events: every feature records its actions here, in the action's transaction. */

/** Records a contribution event and answers its id; call it inside the transaction of the action it describes. */
export async function recordEvent(trx: Db, event: NewEvent): Promise<number> {
  return insertEvent(trx, {
    project_id: event.projectId,
    author_id: event.authorId,
    action: EventAction[event.action],
    target_type: event.target?.type ?? null,
    target_id: event.target?.id ?? null,
    created_at: event.at.toISOString(),
  })
}

/**
 * A removed target's events keep their place but lose their target (GL Milestones::DestroyService#log_destroy_event_for);
 * call it inside the transaction that removes it.
 */
export async function detachEventsFromTarget(trx: Db, target: { type: EventTargetType; id: number }): Promise<void> {
  await clearEventTargets(trx, target.type, target.id)
}

export type PushPayload = Omit<PushEventPayloadRow, 'event_id'>

/** Records a push event with what it did to one ref (GL EventCreateService#push); call it inside a transaction. */
export async function recordPushEvent(
  trx: Db,
  push: { projectId: number; authorId: number; at: Date; payload: PushPayload },
): Promise<void> {
  const eventId = await recordEvent(trx, {
    projectId: push.projectId,
    authorId: push.authorId,
    action: 'pushed',
    target: null,
    at: push.at,
  })
  await insertPushEventPayload(trx, { event_id: eventId, ...push.payload })
}

/**
 * Records that a user leaves every project below a group whose membership goes with theirs in the group
 * (GL ProjectMember#post_destroy_hook: "left", or "expired" for a membership past its date). Call it in the
 * removal's transaction, before the memberships are deleted.
 */
export async function recordProjectsLeftBelow(trx: Db, group: { traversal_ids: string }, userId: number, at: Date): Promise<void> {
  const today = isoDate(at)
  const memberships = await findProjectMembershipsBelow(trx, group.traversal_ids, userId)
  await insertEvents(
    trx,
    memberships.map((m) => ({
      project_id: Number(m.project_id),
      author_id: userId,
      action: m.expires_at !== null && m.expires_at <= today ? EventAction.expired : EventAction.left,
      target_type: null,
      target_id: null,
      created_at: at.toISOString(),
    })),
  )
}

/** How often the retention job removes events past the retention period. */
export const EVENT_RETENTION_INTERVAL_MS = 60 * 60 * 1000

// The run deletes only what is past the cutoff, so a second run of a slot (or two slots at once) removes nothing more.
export const jobHandlers = [
  handle(RemoveExpiredEvents, async (ctx) => {
    const removed = await removeExpiredEvents(ctx)
    if (removed > 0) ctx.log.info({ removed }, 'removed events past the retention period')
  }),
]

export const periodicJobs = [every(EVENT_RETENTION_INTERVAL_MS, RemoveExpiredEvents, {})]
