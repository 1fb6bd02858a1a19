import type { Db } from '../../../db/index.js'
import type { ParsedEvent } from './parse.js'
import { groupKey, insertErrorEvents, upsertErrors, type ErrorUpsert, type NewErrorEvent } from './store.js'

/** One request's events for one project. */
export interface EventSubmission {
  projectId: number
  events: ParsedEvent[]
}

export type EventOutcome = { ok: true } | { ok: false }

/**
 * Stores the events of many requests in the caller's transaction (GL ErrorTracking::CollectErrorService for each
 * event, in arrival order): events of one group are counted in memory and their group written once, then every
 * event is inserted with its group's id.
 */
export async function applyEventSubmissions(trx: Db, submissions: readonly EventSubmission[], now: Date): Promise<EventOutcome[]> {
  const at = now.toISOString()
  const groups = new Map<string, ErrorUpsert>()
  for (const submission of submissions) {
    for (const event of submission.events) {
      const key = groupKey(submission.projectId, event.name, event.actor, event.platform)
      const group = groups.get(key)
      if (group) {
        group.events += 1
        group.description = event.description
        // Events may arrive out of order: the group spans the earliest to the latest time they name (ISO strings sort as times).
        if (event.occurredAt < group.first_seen_at) group.first_seen_at = event.occurredAt
        if (event.occurredAt > group.last_seen_at) group.last_seen_at = event.occurredAt
      } else {
        groups.set(key, {
          project_id: submission.projectId,
          name: event.name,
          actor: event.actor,
          platform: event.platform,
          description: event.description,
          first_seen_at: event.occurredAt,
          last_seen_at: event.occurredAt,
          events: 1,
        })
      }
    }
  }
  // Keys in one order, so that two writers (nodes) lock the same rows in the same order.
  const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group)
  const ids = await upsertErrors(trx, ordered, at)
  const rows: NewErrorEvent[] = []
  for (const submission of submissions) {
    for (const event of submission.events) {
      const id = ids.get(groupKey(submission.projectId, event.name, event.actor, event.platform))
      if (id === undefined) throw new Error('an error group was not written')
      rows.push({
        error_id: id,
        description: event.description,
        environment: event.environment,
        level: event.level,
        occurred_at: event.occurredAt,
        payload: event.payload,
        created_at: at,
      })
    }
  }
  await insertErrorEvents(trx, rows)
  return submissions.map(() => ({ ok: true }))
}
