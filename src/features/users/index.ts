import type { User } from '../../core/caller.js'
import type { Db } from '../../db/index.js'
import { findUserById, findUserByUsername } from './store.js'

export { createUser, type UserAttributes } from './service.js'

/** A user by numeric id or by username, case-insensitively (as Sudo takes it). */
export async function findUserByIdOrUsername(db: Db, value: string): Promise<User | null> {
  if (/^\d+$/.test(value)) {
    const byId = await findUserById(db, Number(value))
    if (byId) return byId
  }
  return (await findUserByUsername(db, value)) ?? null
}
