import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'

export interface IdTokenInput {
  user: User
  /** The application's uid (client_id): the token's audience. */
  clientId: string
  /** The authorization request's nonce, repeated in the token. */
  nonce: string | null
  /** Granted scopes: claims depend on them. */
  scopes: readonly string[]
  /** When the user authenticated. */
  authTime: Date
}

/** An OpenID Connect ID token (RS256 JWT) for a grant that includes the `openid` scope. */
export async function createIdToken(ctx: Context, input: IdTokenInput): Promise<string> {
  void ctx
  void input
  throw new Error('not implemented')
}
