/**
 * Domain errors: each says what happened; http/errors.ts alone turns them into GitLab bodies.
 * Every kind maps to exactly one GitLab response shape.
 */
export abstract class DomainError extends Error {}

/** 404 `{"message":"404 <Resource> Not Found"}`. */
export class NotFound extends DomainError {
  constructor(readonly resource?: string) {
    super(resource ? `${resource} Not Found` : 'Not Found')
  }
}

/** 404 `{"message":"404 Not found"}` (lower-case "found"): GitLab's answer when a record lookup raises. */
export class RecordNotFound extends NotFound {
  constructor() {
    super()
    this.message = 'Not found'
  }
}

/** 401 `{"message":"401 Unauthorized"}`. */
export class Unauthorized extends DomainError {
  constructor(readonly reason?: string) {
    super(reason ?? 'Unauthorized')
  }
}

/** 403 `{"message":"403 Forbidden"}` or `"403 Forbidden - <reason>"`. */
export class Forbidden extends DomainError {
  constructor(readonly reason?: string) {
    super(reason ?? 'Forbidden')
  }
}

/** 403 `{"message":"<text>"}`: a refusal GitLab words whole, without the "403 Forbidden" prefix (`render_api_error!`). */
export class Refused extends DomainError {}

/** 403 `{"error":["<text>", …]}`: GitLab's `error!(model.errors[:attr], 403)`, e.g. the personal project limit. */
export class RefusedWithErrors extends DomainError {
  constructor(readonly messages: string[]) {
    super(messages.join(', '))
  }
}

/** 400 `{"message":"400 Bad request"}` or `"400 Bad request - <reason>"`. */
export class BadRequest extends DomainError {
  constructor(readonly reason?: string) {
    super(reason ?? 'Bad request')
  }
}

/** 400 `{"message":"<text>"}`: a refusal GitLab words whole (`render_api_error!(text, 400)`), e.g. "Transfer failed: …". */
export class Rejected extends DomainError {}

/** 400 `{"message":{"<attr>":["<msg>"]}}`: a model-level validation failure. */
export class Invalid extends DomainError {
  constructor(readonly errors: Record<string, string[]>) {
    super('Invalid')
  }
}

/** 400 `{"message":"400 (Bad request) \"<attr>\" not given"}` (spec: Errors, as spec/README.md decides). */
export class MissingParam extends DomainError {
  constructor(readonly attribute: string) {
    super(`"${attribute}" not given`)
  }
}

/** 400 `{"error":"<param> is invalid"}`: Grape's declared-parameter failures; several joined by ", ". */
export class ParamError extends DomainError {}

/** `{"message":{"error":"<text>"}}` with the status given: GitLab's `render_api_error!({ error: message }, status)` of a failed service. */
export class ServiceFailure extends DomainError {
  constructor(
    readonly status: 400 | 403 | 422,
    message: string,
  ) {
    super(message)
  }
}

/** 409 `{"message":"409 Conflict"}` or a custom message as GitLab's `conflict!(message)` sends it: a string, or a model's error list. */
export class Conflict extends DomainError {
  readonly detail: string | string[]
  constructor(text?: string | string[]) {
    super(Array.isArray(text) ? text.join(', ') : (text ?? '409 Conflict'))
    this.detail = text ?? this.message
  }
}

/** 400 `{"message":{"error":"Your <entity> has been recognized as spam and has been discarded."}}` (spec: Errors). */
export class SpamDiscarded extends DomainError {
  /** `entity` is the snake-case model name: `issue`, `note`. */
  constructor(readonly entity: string) {
    super(`Your ${entity} has been recognized as spam and has been discarded.`)
  }
}

/**
 * 409 `{"needs_captcha_response":true,"spam_log_id":…,"captcha_site_key":…,"message":{"error":…}}`: spam that a
 * solved CAPTCHA may let through (spec: Errors; spec/README.md decides the status).
 */
export class SpamNeedsCaptcha extends DomainError {
  constructor(
    readonly entity: string,
    readonly spamLogId: number,
    readonly captchaSiteKey: string,
  ) {
    super(`Your ${entity} has been recognized as spam. Please, change the content or solve the reCAPTCHA to proceed.`)
  }
}

/** 412 `{"message":"412 Precondition Failed"}`: the resource changed after the client's `If-Unmodified-Since`. */
export class PreconditionFailed extends DomainError {}

/** 422 `{"message":"422 Unprocessable Entity"}` or a custom message: a string, or a model's error list. */
export class Unprocessable extends DomainError {
  readonly detail: string | string[]
  constructor(text?: string | string[]) {
    super(Array.isArray(text) ? text.join(', ') : (text ?? '422 Unprocessable Entity'))
    this.detail = text ?? this.message
  }
}

/** 405 `{"error":"<text>"}` (Grape shape), e.g. the maximum-offset refusal. */
export class NotAllowed extends DomainError {}

/** 405 `{"message":"405 Method Not Allowed"}`: GitLab's `not_allowed!`, e.g. merging a merge request that cannot be merged. */
export class ActionNotAllowed extends DomainError {}

/** 404 `{"error":"404 Not Found"}`: a route that does not exist in this configuration, e.g. a Premium API on Free. */
export class RouteNotFound extends DomainError {}

/** A project asked for by a path it had before a rename or transfer: 301 to its id for reads, 405 otherwise (spec rule 6). */
export class ProjectMoved extends DomainError {
  constructor(readonly projectId: number) {
    super('Non GET methods are not allowed for moved projects')
  }
}

/** 401 `invalid_token` with WWW-Authenticate: expired, revoked, or disabled impersonation token. */
export class InvalidToken extends DomainError {}

/** 403 `insufficient_scope`: the token lacks every scope the endpoint accepts. */
export class InsufficientScope extends DomainError {
  constructor(readonly scopes: string[]) {
    super('The request requires higher privileges than provided by the access token.')
  }
}

/** 429 plain-text `Retry later` (or the configured text), with the RateLimit-* headers of the throttle that refused. */
export class Throttled extends DomainError {
  constructor(
    readonly headers: Record<string, string>,
    /** The admin's `rate_limiting_response_text`, when set. */
    text = 'Retry later',
  ) {
    super(text)
  }
}

/** Doorkeeper's descriptions of the RFC 6749 error codes (DK config/locales/en.yml, GitLab's overrides). */
export const OAUTH_ERROR_DESCRIPTIONS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  unauthorized_client: 'The client is not authorized to perform this request using this method.',
  access_denied: 'The resource owner or authorization server denied the request.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  invalid_redirect_uri: 'The redirect URI included is not valid.',
  invalid_code_challenge_method: 'The code challenge method must be S256.',
  invalid_token: 'The access token is invalid',
  insufficient_scope: 'The request requires higher privileges than provided by the access token.',
  server_error: 'The authorization server encountered an unexpected condition which prevented it from fulfilling the request.',
  temporarily_unavailable:
    'The authorization server is temporarily unable to handle the request due to a temporary overloading or maintenance of the server.',
} as const

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_DESCRIPTIONS

/**
 * An OAuth 2.0 error in RFC 6749 form, `{"error","error_description"}` with Doorkeeper's texts:
 * 401 for `invalid_client`, `unauthorized_client` and `invalid_token`, 400 for the rest unless `status` says.
 */
export class OAuthError extends DomainError {
  constructor(
    readonly code: OAuthErrorCode,
    readonly options: { description?: string; status?: number; extra?: Record<string, string> } = {},
  ) {
    super(options.description ?? OAUTH_ERROR_DESCRIPTIONS[code])
  }

  get status(): number {
    if (this.options.status) return this.options.status
    return this.code === 'invalid_client' || this.code === 'unauthorized_client' || this.code === 'invalid_token' ? 401 : 400
  }
}
