import { AccessLevel } from '../../core/access.js'
import type { Context } from '../../core/context.js'
import { isoDate } from '../../core/time.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { UserRow } from '../../db/schema.js'
import type { LoadedProject } from '../access/index.js'
import { selectTeamUsers } from './store.js'

// The people of a project (GL API GET /projects/:id/users)

/** GET /projects/:id/users: everyone with a role on the project, directly or through its groups (GL `project.team.users`). */
export function listProjectUsers(
  ctx: Context,
  loaded: LoadedProject,
  input: { search?: string; skipUsers?: number[]; page: number; perPage: number },
): Promise<OffsetPage<UserRow>> {
  const query = selectTeamUsers(ctx.db, {
    projectId: loaded.project.id,
    traversalIds: loaded.namespace.kind === 'group' ? loaded.namespace.traversal_ids : '',
    search: input.search,
    skipUsers: input.skipUsers,
    today: isoDate(ctx.now()),
    minLevel: AccessLevel.GUEST,
  })
  return fetchOffsetPage(ctx.db, query, input.page, input.perPage)
}
