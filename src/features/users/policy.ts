import { isAdmin, type Caller, type User } from '../../core/caller.js'

/** Administrators read every user resource (GitLab: `can_read_all_resources?`). */
export function canReadAllUsers(caller: Caller): boolean {
  return isAdmin(caller)
}

/** GitLab's `:read_user_profile`: a private profile is readable by its owner and administrators only. */
export function canReadProfile(viewer: Caller, user: User): boolean {
  return user.private_profile !== 1 || isAdmin(viewer) || viewer.user?.id === user.id
}

/**
 * GitLab's `:read_users_list`: everyone may list users, but anonymous callers only with `username`, so the
 * list of all users is never public (GL users.rb).
 */
export function canListUsers(caller: Caller, username: string | undefined): boolean {
  return caller.user !== null || (username !== undefined && username !== '')
}
