import { isoDate } from '../../core/time.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { incrementFailedAttempts, lockUserAccess, updateUserRow } from './store.js'

// What a password sign-in records on the user (Devise's lockable and trackable), as sessions asks for it.

/** Lifts a lock whose unlock period has passed and forgets the failed attempts; undefined when the user is gone. */
export function unlockUser(db: Db, userId: number, at: string): Promise<UserRow | undefined> {
  return updateUserRow(db, userId, { locked_at: null, failed_attempts: 0, updated_at: at })
}

/** Counts a failed password and answers how many there are now. */
export function recordFailedSignIn(db: Db, userId: number, at: string): Promise<number> {
  return incrementFailedAttempts(db, userId, at)
}

/** Locks the account unless it is already locked (the first lock's time stands); true when this call locked it. */
export function lockUser(db: Db, userId: number, at: string): Promise<boolean> {
  return lockUserAccess(db, userId, at)
}

/** A correct password forgets the failed attempts; undefined when the user is gone. */
export function resetFailedSignIns(db: Db, userId: number, at: string): Promise<UserRow | undefined> {
  return updateUserRow(db, userId, { failed_attempts: 0, updated_at: at })
}

/**
 * Records a web sign-in as Devise's trackable does: the count, the times and addresses, the failed attempts
 * reset and the day's activity; a deactivated user is active again. Undefined when the user is gone.
 */
export function recordSignIn(db: Db, user: UserRow, ip: string, now: Date): Promise<UserRow | undefined> {
  const at = now.toISOString()
  return updateUserRow(db, user.id, {
    sign_in_count: user.sign_in_count + 1,
    last_sign_in_at: user.current_sign_in_at ?? at,
    current_sign_in_at: at,
    last_sign_in_ip: user.current_sign_in_ip ?? ip,
    current_sign_in_ip: ip,
    failed_attempts: 0,
    last_activity_on: isoDate(now),
    ...(user.state === 'deactivated' ? { state: 'active' } : {}),
    updated_at: at,
  })
}
