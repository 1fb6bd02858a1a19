import type { User } from '../../../core/caller.js'
import type { Context } from '../../../core/context.js'
import { OAuthError } from '../../../core/errors.js'
import type { Application } from '../../applications/index.js'
import { authenticateWithPassword } from '../../sessions/index.js'
import { findUserByLogin } from '../../users/index.js'
import { authenticateClient, type ClientCredentials } from '../client-authentication.js'
import { presentParam, stringParam, type OAuthParams } from '../params.js'
import { DEFAULT_SCOPE, OAUTH_SCOPES, parseScopes } from '../../../core/scopes.js'
import { ACCESS_TOKEN_EXPIRES_IN, createAccessToken, withIdToken, type IssuedToken } from '../token.js'
import type { TokenQueue } from '../token-queue.js'

/**
 * GL doorkeeper.rb `resource_owner_from_credentials`: the user named by username or e-mail, unless they have
 * two-factor authentication on (spec: Authentication rule 5), whose password checks out; failed passwords count
 * towards the account lock, and nobody passes while password authentication for Git is off.
 */
async function findResourceOwner(ctx: Context, login: string | null, password: string | null): Promise<User | null> {
  if (login === null || password === null) return null
  const user = await findUserByLogin(ctx.db, login)
  if (user?.two_factor_enabled === 1) return null
  return authenticateWithPassword(ctx, login, password)
}

/** Whether the client part of the request is acceptable (DK PasswordAccessTokenRequest#validate_client). */
function isClientValid(ctx: Context, application: Application | null, credentials: ClientCredentials | null): boolean {
  if (application) return true
  // `ropc_without_client_credentials` (GL doorkeeper.rb skip_client_authentication_for_password_grant): no client at all is fine.
  return ctx.settings.ropc_without_client_credentials && credentials === null
}

/** The requested scopes (default `api`), all known and, with a client, all registered for it (DK ScopeChecker). */
function requestedScopes(params: OAuthParams, application: Application | null): string[] {
  const requested = presentParam(params, 'scope')
  if (requested !== null && /[\n\r\t]/.test(requested)) throw new OAuthError('invalid_scope')
  const scopes = requested === null ? [DEFAULT_SCOPE] : [...new Set(parseScopes(requested))]
  const applicationScopes = application ? parseScopes(application.scopes) : []
  const allowed = (scope: string) => OAUTH_SCOPES.includes(scope) && (applicationScopes.length === 0 || applicationScopes.includes(scope))
  if (!scopes.every(allowed)) throw new OAuthError('invalid_scope')
  return scopes
}

/**
 * grant_type=password (spec: OAuth 2.0 provider; spec/gitlab-behaviour-auth.md §3.5), checked in Doorkeeper's
 * order: the user's credentials are read first, then the client, the user, the scopes. Every refusal of the user
 * is the same invalid_grant. The response carries no refresh token (spec: Token response).
 */
export async function grantPasswordToken(
  ctx: Context,
  tokens: TokenQueue,
  params: OAuthParams,
  credentials: ClientCredentials | null,
): Promise<IssuedToken> {
  const user = await findResourceOwner(ctx, stringParam(params, 'username'), stringParam(params, 'password'))
  const application = await authenticateClient(ctx.db, credentials)
  if (!isClientValid(ctx, application, credentials)) throw new OAuthError('invalid_client')
  if (!user) throw new OAuthError('invalid_grant')
  const scopes = requestedScopes(params, application)

  const issued = await createAccessToken(tokens, {
    applicationId: application?.id ?? null,
    userId: user.id,
    scopes,
    grantId: null,
    previousTokenId: null,
    expiresIn: ACCESS_TOKEN_EXPIRES_IN,
    withRefreshToken: false,
    at: ctx.now(),
    consumes: null,
  })
  // Nothing is used up, so nothing can have been used already.
  return withIdToken(ctx, issued!, { clientId: application?.uid ?? null, nonce: stringParam(params, 'nonce'), scopes })
}
