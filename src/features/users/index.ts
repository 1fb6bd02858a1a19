import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import { findUserById, findUserByUsername, updateUserRow } from './store.js'

export { findUserByLogin, findUserForAuthentication, findUsersByIds } from './store.js'
export { lockUser, recordFailedSignIn, recordSignIn, resetFailedSignIns, unlockUser } from './sign-in.js'

export { isLocked, presentUserBasic, type PresentOptions } from './present.js'

export { UserBasicJson } from './schemas.js'

export { blockBotUser, createBotUser, createUser, ensureInternalUser, type UserAttributes } from './service.js'

/** A user by numeric id, else by username case-insensitively (GL helpers.rb find_user, as Sudo takes it). */
export async function findUserByIdOrUsername(db: Db, value: string): Promise<User | null> {
  if (/^\d+$/.test(value)) return (Number.isSafeInteger(Number(value)) ? await findUserById(db, Number(value)) : null) ?? null
  return (await findUserByUsername(db, value)) ?? null
}

/** The address a user's notifications go to; null sends them to the primary e-mail. Call it inside a transaction. */
export async function setNotificationEmail(trx: Db, userId: number, email: string | null, at: string): Promise<void> {
  await updateUserRow(trx, userId, { notification_email: email, updated_at: at })
}
