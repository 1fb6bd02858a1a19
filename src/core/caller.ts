import type { UserRow } from '../db/schema.js'
import { Forbidden, Unauthorized } from './errors.js'

export type User = UserRow

/** How the caller proved who they are. */
export type CredentialKind = 'personal_access_token' | 'impersonation_token' | 'oauth_token' | 'job_token' | 'session'

export interface Credential {
  kind: CredentialKind
  /** Row id of the token (or session) used. */
  id: number
  scopes: readonly string[]
}

/** Who is making a request: the effective user (after sudo) and the credential used, or anonymous. */
export interface Caller {
  user: User | null
  credential: Credential | null
  /** The administrator who sent `Sudo`, when sudo is in effect. */
  sudoFrom: User | null
}

export const anonymous: Caller = Object.freeze({ user: null, credential: null, sudoFrom: null })

export function isAdmin(caller: Caller): boolean {
  return caller.user?.admin === 1
}

/** GitLab's `authenticated_as_admin!`: 401 for anonymous callers, then 403 for everyone but administrators. */
export function authorizeAdmin(caller: Caller): User {
  if (!caller.user) throw new Unauthorized()
  if (!isAdmin(caller)) throw new Forbidden()
  return caller.user
}
