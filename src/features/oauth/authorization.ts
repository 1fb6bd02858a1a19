import { randomBytes } from 'node:crypto'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { OAUTH_ERROR_DESCRIPTIONS, type OAuthErrorCode } from '../../core/errors.js'
import { digestToken } from '../../core/secrets.js'
import { findApplication, type Application } from '../applications/index.js'
import { stringParam } from './params.js'
import { DEFAULT_SCOPE, formatScopes, OAUTH_SCOPES, parseScopes } from '../../core/scopes.js'
import { findAuthorizedTokens, insertGrant } from './store.js'

/** Doorkeeper's default authorization code lifetime, which GitLab keeps (DK `authorization_code_expires_in` 10 minutes). */
export const AUTHORIZATION_CODE_EXPIRES_IN = 600

/** The only `response_type` enabled: GitLab's grant flows include no implicit grant (spec §3.1). */
const CODE_RESPONSE_TYPE = 'code'

/** The only PKCE method the contract names (service-api.md "GET /oauth/authorize": code_challenge_method 'S256'). */
const S256 = 'S256'

/** An S256 challenge is base64url (no padding) of a SHA-256 digest: exactly 43 characters (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/** Doorkeeper's out-of-band redirect URI: the code is shown on a page, never redirected to (DK `URIChecker.oob_uri?`). */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob'

/** GitLab's text for a user whose e-mail is not confirmed (GL Oauth::AuthorizationsController#verify_confirmed_email!). */
const UNCONFIRMED_EMAIL_DESCRIPTION = 'Verify the email address in your account profile before you sign in.'

/** The authorization request's parameters as the browser sent them; anything but a string counts as absent. */
export interface AuthorizationParams {
  client_id?: unknown
  redirect_uri?: unknown
  response_type?: unknown
  scope?: unknown
  state?: unknown
  code_challenge?: unknown
  code_challenge_method?: unknown
  nonce?: unknown
}

/** A request that passed every check: what the consent page shows and a code is issued for. */
export interface PreAuthorization {
  application: Application
  redirectUri: string
  responseType: string
  scopes: string[]
  state: string | null
  codeChallenge: string | null
  codeChallengeMethod: string | null
  nonce: string | null
}

/** Why a request was refused, and where (if anywhere) the client may be told. */
export interface AuthorizationError {
  code: OAuthErrorCode | 'unconfirmed_email'
  description: string
  /** Status of the error page (DK ErrorResponse#status: 401 for invalid_client, 400 otherwise). */
  status: number
  /** Set only once the redirect URI is known to be registered: the error then goes back to the client. */
  redirectUri: string | null
  /** The error goes in the fragment (DK `response_on_fragment?`: response_type=token). */
  inFragment: boolean
  state: string | null
}

export type PreAuthorizationResult = { ok: true; preAuthorization: PreAuthorization } | { ok: false; error: AuthorizationError }

function refusal(
  code: OAuthErrorCode,
  options: { description?: string; redirectUri?: string | null; inFragment?: boolean; state?: string | null } = {},
): { ok: false; error: AuthorizationError } {
  const redirectUri = options.redirectUri === OOB_REDIRECT_URI ? null : (options.redirectUri ?? null)
  return {
    ok: false,
    error: {
      code,
      description: options.description ?? OAUTH_ERROR_DESCRIPTIONS[code],
      status: code === 'invalid_client' ? 401 : 400,
      redirectUri,
      inFragment: options.inFragment ?? false,
      state: options.state ?? null,
    },
  }
}

/** DK `URIChecker.valid?`: absolute, a host for http(s), no fragment, not opaque; the out-of-band URI too. */
function isValidRedirectUri(uri: string): boolean {
  if (uri === OOB_REDIRECT_URI) return true
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(uri)
  if (!match) return false
  const [, scheme, rest] = match
  if (scheme.toLowerCase() === 'localhost' || !rest.startsWith('/') || rest.includes('#')) return false
  if (/^https?$/i.test(scheme)) {
    try {
      return new URL(uri).hostname !== ''
    } catch {
      return false
    }
  }
  return true
}

const LOOPBACK_URI = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#@]*@)?(\[[0-9A-Fa-f:.]+\]|\d{1,3}(?:\.\d{1,3}){3})(?::(\d*))?([/?#].*)?$/s

/** 127.0.0.0/8 and ::1: IP literals only, as DK's `IPAddr#loopback?` (the name `localhost` is not one). */
function isLoopbackHost(host: string): boolean {
  if (host.startsWith('[')) {
    try {
      return new URL(`http://${host}/`).hostname === '[::1]'
    } catch {
      return false
    }
  }
  const octets = host.split('.').map(Number)
  return octets.length === 4 && octets[0] === 127 && octets.every((octet) => octet <= 255)
}

/** Everything but the port of a loopback redirect URI, or null when the URI is not one. */
function loopbackWithoutPort(uri: string): string | null {
  const match = LOOPBACK_URI.exec(uri)
  if (!match || !isLoopbackHost(match[3])) return null
  const [, scheme, userinfo = '', host, , rest = ''] = match
  return `${scheme}://${userinfo}${host}${rest}`
}

/**
 * The redirect URI must be, character for character, one of the application's (one per line): no
 * normalisation, so no added path, query, port or changed case slips through as an open redirector.
 * The one exception is DK `URIChecker.matches?` after RFC 8252 §7.3: a loopback IP literal may use any port.
 */
export function isRegisteredRedirectUri(uri: string, registered: string): boolean {
  if (!isValidRedirectUri(uri)) return false
  const candidates = registered.split(/\s+/).filter((candidate) => candidate !== '')
  if (candidates.includes(uri)) return true
  const loopback = loopbackWithoutPort(uri)
  return loopback !== null && candidates.some((candidate) => loopbackWithoutPort(candidate) === loopback)
}

/** DK `PreAuthorization#scope`: the requested scopes, or the server's default (`api`) that the application also has. */
function requestedScopes(scope: string | null, application: Application): string[] {
  if (scope !== null) return parseScopes(scope)
  const applicationScopes = parseScopes(application.scopes)
  if (applicationScopes.length === 0) return [DEFAULT_SCOPE]
  return applicationScopes.includes(DEFAULT_SCOPE) ? [DEFAULT_SCOPE] : []
}

/** DK `ScopeChecker.valid?`: not blank, no tabs or line breaks, and every scope the application's (or, without any, the server's). */
function areValidScopes(scope: string | null, scopes: string[], application: Application): boolean {
  if (scopes.length === 0 || (scope !== null && /[\n\r\t]/.test(scope))) return false
  const applicationScopes = parseScopes(application.scopes)
  const allowed = applicationScopes.length > 0 ? applicationScopes : OAUTH_SCOPES
  return scopes.every((name) => allowed.includes(name))
}

/**
 * Checks an authorization request in Doorkeeper's order (DK `OAuth::PreAuthorization` validations):
 * client_id, client, redirect URI, required params, response type, scopes, PKCE method. Errors before
 * the redirect URI is known good are never sent to it.
 */
export async function preAuthorize(ctx: Context, params: AuthorizationParams): Promise<PreAuthorizationResult> {
  const clientId = stringParam(params, 'client_id')
  if (clientId === null) return refusal('invalid_request', { description: 'Missing required parameter: client_id.' })
  const application = await findApplication(ctx.db, clientId)
  if (!application) return refusal('invalid_client')
  const redirectUri = stringParam(params, 'redirect_uri')
  if (redirectUri === null || !isRegisteredRedirectUri(redirectUri, application.redirect_uri)) return refusal('invalid_redirect_uri')

  const state = stringParam(params, 'state')
  const responseType = stringParam(params, 'response_type')
  // DK `response_on_fragment?`: an implicit-grant request hears back in the fragment, as its client listens there.
  const back = { redirectUri, state, inFragment: responseType === 'token' }
  if (responseType === null) return refusal('invalid_request', { ...back, description: 'Missing required parameter: response_type.' })
  if (responseType !== CODE_RESPONSE_TYPE) return refusal('unsupported_response_type', back)

  const scope = stringParam(params, 'scope')
  const scopes = requestedScopes(scope, application)
  if (!areValidScopes(scope, scopes, application)) return refusal('invalid_scope', back)

  const codeChallenge = stringParam(params, 'code_challenge')
  const codeChallengeMethod = stringParam(params, 'code_challenge_method')
  // A challenge needs its method (DK `validate_code_challenge_method`); only S256 is offered, so `plain` is refused too.
  if (codeChallenge !== null && codeChallengeMethod !== S256) return refusal('invalid_code_challenge_method', back)
  // A challenge that cannot be an S256 digest could never match a verifier: refused now rather than at the token endpoint.
  if (codeChallenge !== null && !S256_CHALLENGE.test(codeChallenge)) return refusal('invalid_request', back)

  return {
    ok: true,
    preAuthorization: {
      application,
      redirectUri,
      responseType,
      scopes,
      state,
      codeChallenge,
      codeChallengeMethod: codeChallenge === null ? null : codeChallengeMethod,
      nonce: stringParam(params, 'nonce'),
    },
  }
}

/** GitLab refuses to authorize for a user whose e-mail is not confirmed (GL `verify_confirmed_email!`); null when they may go on. */
export function refuseUnconfirmedUser(user: User): AuthorizationError | null {
  if (user.confirmed_at !== null) return null
  return {
    code: 'unconfirmed_email',
    description: UNCONFIRMED_EMAIL_DESCRIPTION,
    status: 403,
    redirectUri: null,
    inFragment: false,
    state: null,
  }
}

function sameScopeSet(a: readonly string[], b: readonly string[]): boolean {
  const left = [...new Set(a)].sort()
  const right = [...new Set(b)].sort()
  return left.length === right.length && left.every((scope, i) => scope === right[i])
}

/**
 * No consent page for a trusted application (GitLab's `skip_authorization`), nor for a confidential one the
 * user already gave a live token with exactly these scopes (GL Oauth::AuthorizationsController#new, DK `matching_token_for`).
 */
export async function canSkipConsent(ctx: Context, user: User, preAuthorization: PreAuthorization): Promise<boolean> {
  const { application } = preAuthorization
  if (application.trusted === 1) return true
  if (application.confidential !== 1) return false
  const tokens = await findAuthorizedTokens(ctx.db, user.id, application.id)
  return tokens.some((token) => sameScopeSet(parseScopes(token.scopes), preAuthorization.scopes))
}

/** Issues a one-time authorization code (DK `Authorization::Code#issue_token!`); only its digest is stored. */
export async function issueAuthorizationCode(ctx: Context, user: User, preAuthorization: PreAuthorization): Promise<string> {
  // GitLab's `default_generator_method :hex`: 32 random bytes as 64 hex characters.
  const code = randomBytes(32).toString('hex')
  await insertGrant(ctx.db, {
    application_id: preAuthorization.application.id,
    resource_owner_id: user.id,
    code_digest: digestToken(code),
    redirect_uri: preAuthorization.redirectUri,
    scopes: formatScopes(preAuthorization.scopes),
    code_challenge: preAuthorization.codeChallenge,
    code_challenge_method: preAuthorization.codeChallengeMethod,
    nonce: preAuthorization.nonce,
    expires_in: AUTHORIZATION_CODE_EXPIRES_IN,
    created_at: ctx.now().toISOString(),
  })
  return code
}

/**
 * The redirect URI with response parameters added as DK `URIBuilder` does: its own query kept (a parameter
 * of the same name replaced), blank values dropped, form-encoded (a space is '+', as Rack's `build_query`).
 * The URI is otherwise left exactly as registered.
 */
export function redirectWith(redirectUri: string, parameters: Record<string, string | null>, inFragment = false): string {
  const added = Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== null && entry[1] !== '')
  if (inFragment) return `${redirectUri}#${new URLSearchParams(added).toString()}`
  const separator = redirectUri.indexOf('?')
  const base = separator === -1 ? redirectUri : redirectUri.slice(0, separator)
  const query = new URLSearchParams(separator === -1 ? '' : redirectUri.slice(separator + 1))
  for (const [name, value] of added) query.set(name, value)
  return `${base}?${query.toString()}`
}

/** Where the browser goes with a new code: `redirect_uri?code=…&state=…` (DK `CodeResponse`). */
export function codeRedirect(preAuthorization: PreAuthorization, code: string): string {
  return redirectWith(preAuthorization.redirectUri, { code, state: preAuthorization.state })
}

/** Where the browser goes with an error the client may hear (DK `ErrorResponse#redirect_uri`); null when it must not. */
export function errorRedirect(error: AuthorizationError): string | null {
  if (error.redirectUri === null) return null
  return redirectWith(error.redirectUri, { error: error.code, error_description: error.description, state: error.state }, error.inFragment)
}

/** The user said no (DK `CodeRequest#deny`): `access_denied`, back to the client. */
export function denial(preAuthorization: PreAuthorization): AuthorizationError {
  return refusal('access_denied', { redirectUri: preAuthorization.redirectUri, state: preAuthorization.state }).error
}
