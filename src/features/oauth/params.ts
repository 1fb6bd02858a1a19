import type { FastifyRequest } from 'fastify'
import { OAuthError } from '../../core/errors.js'
import { mergedParams } from '../../http/route.js'

/** Parameters of an OAuth request: query and body merged, as Rails' `params` gives them to Doorkeeper. */
export type OAuthParams = Record<string, unknown>

/** A parameter's value when it is a non-empty string; anything else (absent, blank, array, hash) counts as not sent. */
export function stringParam(params: object, name: string): string | null {
  const value = (params as OAuthParams)[name]
  return typeof value === 'string' && value !== '' ? value : null
}

/** Ruby's `present?` on a string parameter: sent and not only whitespace. */
export function presentParam(params: OAuthParams, name: string): string | null {
  const value = stringParam(params, name)
  return value !== null && value.trim() !== '' ? value : null
}

/** Doorkeeper's invalid_request for a missing parameter (DK InvalidRequestResponse, `missing_param`), as the authorization endpoint words it too. */
export function missingParameter(name: string): OAuthError {
  return new OAuthError('invalid_request', { description: `Missing required parameter: ${name}.` })
}

/** The OAuth token a request presents, where GitLab's Doorkeeper looks (GL doorkeeper.rb access_token_methods): `access_token`, `Authorization: Bearer`, `bearer_token`. */
export function presentedAccessToken(request: FastifyRequest): string | null {
  const params = mergedParams(request)
  const fromParam = stringParam(params, 'access_token')
  if (fromParam !== null) return fromParam
  const authorization = request.headers.authorization
  const bearer = typeof authorization === 'string' && /^Bearer /i.test(authorization) ? authorization.replace(/^Bearer /i, '') : ''
  return bearer !== '' ? bearer : stringParam(params, 'bearer_token')
}
