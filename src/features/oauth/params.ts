import { OAuthError } from '../../core/errors.js'

/** Parameters of an OAuth request: query and body merged, as Rails' `params` gives them to Doorkeeper. */
export type OAuthParams = Record<string, unknown>

/** A parameter's value when it is a non-empty string; anything else (absent, blank, array, hash) counts as not sent. */
export function stringParam(params: OAuthParams, name: string): string | null {
  const value = params[name]
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
