import type { FastifyRequest } from 'fastify'
import { anonymous, type Caller, type Credential, type User } from '../core/caller.js'
import { Forbidden, InsufficientScope, InvalidToken, NotFound, Unauthorized } from '../core/errors.js'
import type { Settings } from '../core/settings.js'
import { tokenRefusal, type TokenRefusal, type TokenState } from '../core/token-validity.js'
import type { Db } from '../db/index.js'
import type { CredentialCache } from './credential-cache.js'

/** A token found by one of the lookups, before it is judged. */
export interface FoundToken extends TokenState {
  id: number
  user: User
  scopes: readonly string[]
}

/** Where credentials are looked up; features fill these in (OAuth, job tokens, sessions come later). */
export interface CredentialLookups {
  /** Personal, project, group and impersonation tokens; null when the value matches none. */
  findAccessToken(db: Db, value: string): Promise<FoundToken | null>
  findOAuthToken?(db: Db, value: string): Promise<FoundToken | null>
  findJobToken?(db: Db, value: string): Promise<FoundToken | null>
  findSessionUser?(db: Db, request: FastifyRequest, settings: Settings, now: Date): Promise<User | null>
  findUserByIdOrUsername(db: Db, value: string): Promise<User | null>
  /** Called once a token passed tokenRefusal; may record last use and the client IP. */
  recordTokenUse(db: Db, token: FoundToken, now: Date, ip: string): Promise<void>
  /** Revokes the tokens rotated from this one; called when a revoked token is presented on a rotate path. */
  revokeTokenFamily?(db: Db, token: FoundToken, now: Date): Promise<void>
}

const REFUSALS: Record<TokenRefusal, string> = {
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
  impersonation_disabled: 'Token is an impersonation token but impersonation was disabled.',
}

type Params = Record<string, unknown>

function stringParam(params: Params, name: string): string | null {
  const value = params[name]
  return typeof value === 'string' && value !== '' ? value : null
}

function header(request: FastifyRequest, name: string): string | null {
  const value = request.headers[name]
  return typeof value === 'string' && value !== '' ? value : null
}

function bearerValue(request: FastifyRequest): string | null {
  const authorization = header(request, 'authorization')
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null
  return match ? match[1] : null
}

// GL auth_finders.rb access_token_rotation_request?: reuse of a rotated-away token there revokes its family.
const ROTATION_PATH = /access_tokens\/(\d+|self)\/rotate$/

function requestPath(request: FastifyRequest): string {
  return (request.raw.url ?? request.url).split('?')[0]
}

function deniedReason(user: User, externalUrl: string): string | null {
  if (user.state === 'deactivated') {
    return `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${externalUrl}`
  }
  if (user.state === 'blocked' || user.state === 'ldap_blocked' || user.state === 'banned') return 'Your account has been blocked.'
  if (user.state === 'blocked_pending_approval') return 'Your account is pending approval from your administrator and hence blocked.'
  return null
}

/** The scopes that let a token into an endpoint: `api` always, `read_api` for reads, plus the route's own. */
export function acceptedScopes(method: string, extra: readonly string[]): string[] {
  const isRead = method === 'GET' || method === 'HEAD'
  return isRead ? ['api', 'read_api', ...extra] : ['api', ...extra]
}

export class Authenticator {
  constructor(
    private readonly lookups: CredentialLookups,
    /** Read at each request: the instance URL may be settled only once the server listens. */
    private readonly instance: { readonly externalUrl: string },
    private readonly credentials: CredentialCache,
  ) {}

  /**
   * Finds the caller in GitLab's order (spec: Authentication; GL api_guard.rb): OAuth token, then
   * personal/impersonation token, then job token, then session; then judges the token and applies sudo.
   */
  async authenticate(
    db: Db,
    request: FastifyRequest,
    params: Params,
    settings: Settings,
    routeScopes: readonly string[],
    now: Date,
  ): Promise<Caller> {
    const token = await this.findToken(db, request, params, now)
    let user: User | null = null
    let credential: Credential | null = null
    if (token) {
      const refusal = tokenRefusal(token, now, settings)
      if (refusal) {
        if (refusal === 'revoked' && this.lookups.revokeTokenFamily && ROTATION_PATH.test(requestPath(request))) {
          await this.lookups.revokeTokenFamily(db, token, now)
        }
        throw new InvalidToken(REFUSALS[refusal])
      }
      // GitLab records the use before judging the user and the scopes (GL auth_finders.rb find_user_from_access_token).
      await this.lookups.recordTokenUse(db, token, now, request.ip)
      user = token.user
      credential = { kind: token.kind, id: token.id, scopes: token.scopes }
    } else if (this.lookups.findSessionUser) {
      user = await this.lookups.findSessionUser(db, request, settings, now)
      if (user) credential = { kind: 'session', id: 0, scopes: [] }
    }
    if (!user) {
      if (stringParam(params, 'sudo') ?? header(request, 'sudo')) throw new Unauthorized()
      return anonymous
    }
    const denied = deniedReason(user, this.instance.externalUrl)
    if (denied) throw new Forbidden(denied)

    const sudo = stringParam(params, 'sudo') ?? header(request, 'sudo')
    if (sudo !== null) {
      if (user.admin !== 1) throw new Forbidden('Must be admin to use sudo')
      if (credential?.kind === 'session') throw new Forbidden('Must be authenticated using an OAuth or personal access token to use sudo')
      if (!credential?.scopes.includes('sudo')) throw new InsufficientScope(['sudo'])
      const target = await this.lookups.findUserByIdOrUsername(db, sudo)
      // Contract (Errors): `404 User with ID or username <value> Not Found`.
      if (!target) throw new NotFound(`User with ID or username ${sudo}`)
      return { user: target, credential, sudoFrom: user }
    }
    if (credential && credential.kind !== 'session') {
      const accepted = acceptedScopes(request.method, routeScopes)
      if (!credential.scopes.some((scope) => accepted.includes(scope))) throw new InsufficientScope(accepted)
    }
    return { user, credential, sudoFrom: null }
  }

  private async findToken(db: Db, request: FastifyRequest, params: Params, now: Date): Promise<FoundToken | null> {
    const bearer = bearerValue(request)
    const findOAuthToken = this.lookups.findOAuthToken
    if (findOAuthToken) {
      const oauthValue = stringParam(params, 'access_token') ?? bearer ?? stringParam(params, 'bearer_token')
      if (oauthValue) {
        const found = await this.credentials.get(`oauth ${oauthValue}`, now, () => findOAuthToken(db, oauthValue))
        if (found) return found
      }
    }
    const privateValue = stringParam(params, 'private_token') ?? header(request, 'private-token') ?? bearer
    if (privateValue) {
      const found = await this.credentials.get(`private ${privateValue}`, now, () => this.lookups.findAccessToken(db, privateValue))
      if (found) return found
    }
    if (this.lookups.findJobToken) {
      const jobValue = stringParam(params, 'job_token') ?? header(request, 'job-token')
      if (jobValue) {
        const found = await this.lookups.findJobToken(db, jobValue)
        if (found) return found
        throw new Unauthorized()
      }
    }
    if (privateValue || stringParam(params, 'access_token')) throw new Unauthorized()
    return null
  }
}
