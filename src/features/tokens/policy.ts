import { isAdmin, type Caller } from '../../core/caller.js'
import type { TokenRow } from '../../db/schema.js'

/** GL UserPolicy read_user_personal_access_tokens / manage_user_personal_access_token: the user or an admin. */
export function canManageTokensOf(caller: Caller, userId: number | null): boolean {
  if (isAdmin(caller)) return true
  return userId !== null && caller.user?.id === userId
}

/** GL PersonalAccessTokenPolicy: an admin, or the owner of a token that is not an impersonation token. */
export function canRevokeToken(caller: Caller, token: Pick<TokenRow, 'user_id' | 'impersonation'>): boolean {
  if (isAdmin(caller)) return true
  return caller.user?.id === token.user_id && token.impersonation === 0
}
