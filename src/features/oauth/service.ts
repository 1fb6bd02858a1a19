import type { Context } from '../../core/context.js'
import { OAuthError } from '../../core/errors.js'
import type { ClientCredentials } from './client-authentication.js'
import { exchangeAuthorizationCode } from './grants/authorization-code.js'
import { grantPasswordToken } from './grants/password.js'
import { refreshAccessToken } from './grants/refresh-token.js'
import { missingParameter, stringParam, type OAuthParams } from './params.js'
import type { IssuedToken } from './token.js'
import type { TokenQueue } from './token-queue.js'

/**
 * POST /oauth/token: issues a token for one of the grants svc supports (spec: OAuth 2.0 provider). Client
 * credentials grants are refused: their tokens have no resource owner, which a token here always has.
 */
export async function issueToken(
  ctx: Context,
  tokens: TokenQueue,
  params: OAuthParams,
  credentials: ClientCredentials | null,
): Promise<IssuedToken> {
  const grantType = stringParam(params, 'grant_type')
  // DK Request.token_strategy: MissingRequiredParameter, then UnsupportedGrantType.
  if (grantType === null) throw missingParameter('grant_type')
  if (grantType === 'authorization_code') return exchangeAuthorizationCode(ctx, tokens, params, credentials)
  if (grantType === 'refresh_token') return refreshAccessToken(ctx, tokens, params, credentials)
  if (grantType === 'password') return grantPasswordToken(ctx, tokens, params, credentials)
  throw new OAuthError('unsupported_grant_type')
}
