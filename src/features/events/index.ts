import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { LoadedProject } from '../access/index.js'
import { presentEvent } from './present.js'
import type { EventJson } from './schemas.js'
import { listOwnEvents, listProjectEvents, listUserEvents, type EventListInput } from './service.js'

export type { EventJson } from './schemas.js'

/** Whose activity a page shows: a project's, a user's, or the caller's own projects' (`/events?scope=all`). */
export type ActivityOf = { project: LoadedProject } | { user: User } | { own: true }

/** The newest `limit` events the caller may see, as the API presents them. */
export async function recentEvents(ctx: Context, of: ActivityOf, limit: number): Promise<EventJson[]> {
  const input: EventListInput = { sort: 'desc', pagination: { kind: 'offset', page: 1, perPage: limit } }
  const list =
    'project' in of
      ? await listProjectEvents(ctx, of.project, input)
      : 'user' in of
        ? await listUserEvents(ctx, of.user, input)
        : await listOwnEvents(ctx, 'all', input)
  const options = { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now(), projectList: 'project' in of }
  return list.visible.map((event) => presentEvent(event, list.targets, options))
}
