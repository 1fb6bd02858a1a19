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

/** 409 `{"message":"409 Conflict"}` or a custom message as GitLab's `conflict!(message)` sends it. */
export class Conflict extends DomainError {
  constructor(readonly text?: string) {
    super(text ?? '409 Conflict')
  }
}

/** 412 `{"message":"412 Precondition Failed"}`: the resource changed after the client's `If-Unmodified-Since`. */
export class PreconditionFailed extends DomainError {}

/** 422 `{"message":"422 Unprocessable Entity"}` or a custom message. */
export class Unprocessable extends DomainError {
  constructor(readonly text?: string) {
    super(text ?? '422 Unprocessable Entity')
  }
}

/** 405 `{"error":"<text>"}` (Grape shape), e.g. the maximum-offset refusal. */
export class NotAllowed extends DomainError {}

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
