import { authorizeAdmin, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import { findUserByUsername, selectUsers } from './store.js'

/** The admin area's user tabs besides all users (GL User.filter_items). */
export const ADMIN_USER_FILTERS = ['active', 'admins', 'external', 'blocked', 'deactivated'] as const
export type AdminUserFilter = (typeof ADMIN_USER_FILTERS)[number]

/**
 * Every user for the admin area (GL Admin::UsersController#index): by name (or the newest first), narrowed by a tab
 * and a search of names, usernames and e-mails.
 */
export async function listUsersForAdmin(
  ctx: Context,
  input: { filter: AdminUserFilter | null; search: string; page: number; perPage: number; newestFirst?: boolean },
): Promise<OffsetPage<User>> {
  authorizeAdmin(ctx.caller)
  const { filter } = input
  const query = selectUsers(ctx.db, {
    search: input.search === '' ? undefined : input.search,
    searchEmails: true,
    active: filter === 'active',
    blocked: filter === 'blocked',
    external: filter === 'external',
    excludeExternal: false,
    admins: filter === 'admins',
    deactivated: filter === 'deactivated',
    excludeBots: false,
    externIdentity: false,
  })
  const ordered = input.newestFirst ? query.orderBy('id', 'desc') : query.orderBy('name', 'asc').orderBy('id', 'asc')
  return fetchOffsetPage(ctx.db, ordered, input.page, input.perPage)
}

/** A user by username, for an administrator; NotFound when there is none. */
export async function findUserForAdmin(ctx: Context, username: string): Promise<User> {
  authorizeAdmin(ctx.caller)
  const user = await findUserByUsername(ctx.db, username)
  if (!user) throw new NotFound('User')
  return user
}
