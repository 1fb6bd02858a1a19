import { isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Forbidden } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { UserRow } from '../../db/schema.js'
import { findProjectById, type LoadedProject } from '../access/index.js'
import type { ProjectView } from './present.js'
import { countStarrers, deleteStar, findStar, insertStar, selectStarrers, type StarrerOrder } from './store.js'
import { viewOfLoaded } from './views.js'

// Stars (GL API POST /projects/:id/star, /unstar, GET /starrers)

/** POST /projects/:id/star: null when the caller had starred it already (304). */
export async function starProject(ctx: Context, loaded: LoadedProject): Promise<ProjectView | null> {
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  const starred = await ctx.db.transaction().execute((trx) => insertStar(trx, user.id, loaded.project.id, ctx.now().toISOString()))
  if (!starred) return null
  return viewOfLoaded(ctx, { ...loaded, project: (await findProjectById(ctx.db, loaded.project.id))[0] })
}

/** POST /projects/:id/unstar: null when the caller had not starred it (304). */
export async function unstarProject(ctx: Context, loaded: LoadedProject): Promise<ProjectView | null> {
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  if ((await findStar(ctx.db, user.id, loaded.project.id)).length === 0) return null
  const removed = await ctx.db.transaction().execute((trx) => deleteStar(trx, user.id, loaded.project.id))
  if (!removed) return null
  return viewOfLoaded(ctx, { ...loaded, project: (await findProjectById(ctx.db, loaded.project.id))[0] })
}

/** Whether the caller has starred the project (GL User#starred?); never for a visitor. */
export async function isStarredByCaller(ctx: Context, loaded: LoadedProject): Promise<boolean> {
  const user = ctx.caller.user
  if (!user) return false
  return (await findStar(ctx.db, user.id, loaded.project.id)).length > 0
}

/** POST /:namespace/:project/toggle_star (GL User#toggle_star): stars, or unstars what the caller had starred; the count after. */
export async function toggleStar(ctx: Context, loaded: LoadedProject): Promise<number> {
  const changed = (await isStarredByCaller(ctx, loaded)) ? await unstarProject(ctx, loaded) : await starProject(ctx, loaded)
  // Null when a concurrent request made the same change first: the count is read again.
  const project = changed?.project ?? (await findProjectById(ctx.db, loaded.project.id))[0] ?? loaded.project
  return project.star_count
}

/** The starrers page's counts (GL Projects::StarrersController): all starrers, and those with a public profile. */
export function countProjectStarrers(ctx: Context, loaded: LoadedProject): Promise<{ total: number; publicProfiles: number }> {
  return countStarrers(ctx.db, loaded.project.id)
}

export interface Starrer {
  user: UserRow
  starredSince: string
}

/** GET /projects/:id/starrers (GL UsersStarProjectsFinder): private profiles only for administrators and themselves. */
export async function listStarrers(
  ctx: Context,
  loaded: LoadedProject,
  input: { search?: string; order?: StarrerOrder; page: number; perPage: number },
): Promise<OffsetPage<Starrer>> {
  const query = selectStarrers(ctx.db, {
    projectId: loaded.project.id,
    search: input.search,
    viewerId: ctx.caller.user?.id ?? null,
    viewerIsAdmin: isAdmin(ctx.caller),
    order: input.order,
  })
  const page = await fetchOffsetPage(ctx.db, query, input.page, input.perPage)
  return {
    ...page,
    rows: page.rows.map((row) => {
      const { starred_since: starredSince, ...user } = row
      return { user: user as UserRow, starredSince }
    }),
  }
}
