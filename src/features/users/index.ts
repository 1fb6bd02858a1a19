import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import { findUserById, findUserByUsername } from './store.js'

export {
  findUserByLogin,
  findUserForAuthentication,
  findUsersByIds,
  incrementFailedAttempts,
  lockUserAccess,
  updateUserRow,
} from './store.js'

export { presentUserBasic, type PresentOptions } from './present.js'

export { UserBasicJson } from './schemas.js'

export { createUser, ensureInternalUser, type UserAttributes } from './service.js'

/** A user by numeric id, else by username case-insensitively (GL helpers.rb find_user, as Sudo takes it). */
export async function findUserByIdOrUsername(db: Db, value: string): Promise<User | null> {
  if (/^\d+$/.test(value)) return (Number.isSafeInteger(Number(value)) ? await findUserById(db, Number(value)) : null) ?? null
  return (await findUserByUsername(db, value)) ?? null
}
