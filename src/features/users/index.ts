import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { Db } from '../../db/index.js'
import { listUsers } from './service.js'
import { findUserById, findUserByUsername, updateUserRow } from './store.js'

export {
  findUserByEmail,
  findUserByLogin,
  findUserByUsername,
  findUserForAuthentication,
  findUsersByIds,
  findUsersByUsernames,
} from './store.js'
export { lockUser, recordFailedSignIn, recordSignIn, resetFailedSignIns, unlockUser } from './sign-in.js'

export { isLocked, presentUserBasic, type PresentOptions } from './present.js'

export { UserBasicJson } from './schemas.js'

// The admin area's pages act through the API's own services.
export { activateUser, blockUser, deactivateUser, unblockUser, updateUser } from './service.js'
export { ADMIN_USER_FILTERS, findUserForAdmin, listUsersForAdmin, type AdminUserFilter } from './admin.js'
export { canStopImpersonating, impersonationRefusal } from './impersonation.js'

export {
  blockBotUser,
  createBotUser,
  createUser,
  ensureInternalUser,
  updateOwnPassword,
  updateOwnProfile,
  type OwnProfileAttributes,
  type UserAttributes,
} from './service.js'

/** A user by numeric id, else by username case-insensitively (GL helpers.rb find_user, as Sudo takes it). */
export async function findUserByIdOrUsername(db: Db, value: string): Promise<User | null> {
  if (/^\d+$/.test(value)) return (Number.isSafeInteger(Number(value)) ? await findUserById(db, Number(value)) : null) ?? null
  return (await findUserByUsername(db, value)) ?? null
}

/** The address a user's notifications go to; null sends them to the primary e-mail. Call it inside a transaction. */
export async function setNotificationEmail(trx: Db, userId: number, email: string | null, at: string): Promise<void> {
  await updateUserRow(trx, userId, { notification_email: email, updated_at: at })
}

/** Active users whose name, username or (for administrators) e-mail match, as GET /users?search= lists them; none for visitors. */
export async function findVisibleUsers(ctx: Context, search: string, limit: number): Promise<User[]> {
  if (!ctx.caller.user) return []
  const list = await listUsers(ctx, {
    search,
    active: true,
    external: false,
    excludeExternal: false,
    blocked: false,
    excludeInternal: true,
    withoutProjectBots: true,
    admins: false,
    orderBy: 'id',
    sort: 'desc',
    pagination: { kind: 'offset', page: 1, perPage: limit },
  })
  return [...list.page.rows]
}
