import type { Db } from '../../../db/index.js'
import { EventAction } from '../../../core/event-actions.js'

/**
 * The refs one push moved, in the order it recorded them, read from the push events it wrote in its transaction: they
 * share its project, author and time.
 */
export function findRefsPushedWith(db: Db, push: { projectId: number; authorId: number; at: Date }) {
  return db
    .selectFrom('push_event_payloads as p')
    .innerJoin('events as e', 'e.id', 'p.event_id')
    .select(['p.ref', 'p.ref_type', 'p.action', 'p.commit_from', 'p.commit_to'])
    .where('e.project_id', '=', push.projectId)
    .where('e.author_id', '=', push.authorId)
    .where('e.action', '=', EventAction.pushed)
    .where('e.created_at', '=', push.at.toISOString())
    .orderBy('e.id')
    .execute()
}
