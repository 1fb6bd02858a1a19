import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  ActionNotAllowed,
  RouteNotFound,
  BadRequest,
  Conflict,
  Forbidden,
  InsufficientScope,
  Invalid,
  InvalidToken,
  MissingParam,
  NotAllowed,
  NotFound,
  OAuthError,
  ParamError,
  PreconditionFailed,
  ProjectMoved,
  Refused,
  RefusedWithErrors,
  Rejected,
  ServiceFailure,
  SpamDiscarded,
  SpamNeedsCaptcha,
  Throttled,
  Unauthorized,
  Unprocessable,
} from '../core/errors.js'

/** Refused before routing, as GitLab's malformed-strings middleware does: plain-text 400 `Bad Request`. */
export class MalformedRequest extends Error {}

/** A known route reached with a method it does not have. */
export class MethodNotAllowed extends Error {
  constructor(readonly allowed: string[]) {
    super('405 Not Allowed')
  }
}

/** A body media type the API does not read (Grape's 415). */
export class UnsupportedMediaType extends Error {
  constructor(readonly mediaType: string) {
    super(`The provided content-type '${mediaType}' is not supported.`)
  }
}

export interface Rendered {
  status: number
  body: unknown
  headers?: Record<string, string>
  /** Sent as text/plain instead of JSON. */
  text?: boolean
  /** The exact text type, where GitLab sends one without a charset. */
  contentType?: string
}

const INVALID_TOKEN_REALM = 'Protected by OAuth 2.0'

function invalidTokenHeader(description: string): string {
  return `Bearer realm="${INVALID_TOKEN_REALM}", error="invalid_token", error_description="${description}"`
}

/** Doorkeeper's error response: JSON with a charset, never cached, and the error repeated in WWW-Authenticate. */
function renderOAuthError(error: OAuthError): Rendered {
  const body: Record<string, string> = { error: error.code, error_description: error.message, ...error.options.extra }
  return {
    status: error.status,
    body,
    contentType: 'application/json; charset=utf-8',
    headers: {
      'cache-control': 'no-store, no-cache',
      'www-authenticate': `Bearer realm="Doorkeeper", error="${error.code}", error_description="${error.message}"`,
    },
  }
}

/** The one place an error becomes a GitLab response; anything unknown is a bare 500. */
export function renderError(error: unknown): Rendered {
  if (error instanceof OAuthError) return renderOAuthError(error)
  if (error instanceof NotFound) return { status: 404, body: { message: `404 ${error.message}` } }
  if (error instanceof Unauthorized) {
    return { status: 401, body: { message: error.reason ? `401 Unauthorized - ${error.reason}` : '401 Unauthorized' } }
  }
  if (error instanceof Forbidden) {
    return { status: 403, body: { message: error.reason ? `403 Forbidden - ${error.reason}` : '403 Forbidden' } }
  }
  if (error instanceof Refused) return { status: 403, body: { message: error.message } }
  if (error instanceof RefusedWithErrors) return { status: 403, body: { error: error.messages } }
  if (error instanceof BadRequest) {
    return { status: 400, body: { message: error.reason ? `400 Bad request - ${error.reason}` : '400 Bad request' } }
  }
  if (error instanceof Rejected) return { status: 400, body: { message: error.message } }
  if (error instanceof MissingParam) return { status: 400, body: { message: `400 (Bad request) ${error.message}` } }
  if (error instanceof Invalid) return { status: 400, body: { message: error.errors } }
  if (error instanceof ParamError) return { status: 400, body: { error: error.message } }
  if (error instanceof SpamDiscarded) return { status: 400, body: { message: { error: error.message } } }
  if (error instanceof ServiceFailure) return { status: error.status, body: { message: { error: error.message } } }
  if (error instanceof SpamNeedsCaptcha) {
    // GitLab's rest_api_actions_support.rb: the spam fields, then the model's errors as one sentence.
    const body = {
      needs_captcha_response: true,
      spam_log_id: error.spamLogId,
      captcha_site_key: error.captchaSiteKey,
      message: { error: error.message },
    }
    return { status: 409, body }
  }
  if (error instanceof Conflict) return { status: 409, body: { message: error.detail } }
  if (error instanceof PreconditionFailed) return { status: 412, body: { message: '412 Precondition Failed' } }
  if (error instanceof Unprocessable) return { status: 422, body: { message: error.detail } }
  if (error instanceof RouteNotFound) return { status: 404, body: { error: '404 Not Found' } }
  if (error instanceof NotAllowed) return { status: 405, body: { error: error.message } }
  if (error instanceof ActionNotAllowed) return { status: 405, body: { message: '405 Method Not Allowed' } }
  if (error instanceof MethodNotAllowed) {
    return { status: 405, body: { error: error.message }, headers: { allow: error.allowed.join(', ') } }
  }
  if (error instanceof UnsupportedMediaType) return { status: 415, body: { error: error.message } }
  if (error instanceof InvalidToken) {
    return {
      status: 401,
      body: { error: 'invalid_token', error_description: error.message },
      headers: { 'www-authenticate': invalidTokenHeader(error.message) },
    }
  }
  if (error instanceof InsufficientScope) {
    return {
      status: 403,
      body: { error: 'insufficient_scope', error_description: error.message, scope: error.scopes.join(' ') },
    }
  }
  if (error instanceof Throttled) {
    // Rack::Attack's responder: `text/plain`, the text and a newline (GL lib/gitlab/rack_attack.rb).
    return { status: 429, body: `${error.message}\n`, headers: error.headers, text: true, contentType: 'text/plain' }
  }
  if (error instanceof MalformedRequest) return { status: 400, body: 'Bad Request', text: true }
  const fastifyError = error as { statusCode?: number; code?: string }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, body: { message: '413 Request Entity Too Large' } }
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { status: 415, body: { error: 'The provided content-type is not supported.' } }
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    // Framework-level refusals of the request itself (bad framing, bad content length): GitLab's plain 400.
    return { status: 400, body: 'Bad Request', text: true }
  }
  return { status: 500, body: { message: '500 Internal Server Error' } }
}

/**
 * GitLab's moved-project answer (GL lib/api/helpers.rb `find_project!`): reads go to the same route by
 * the project's id, keeping the rest of the path, the format suffix and the query; writes are refused.
 */
function renderMoved(error: ProjectMoved, request: FastifyRequest, externalUrl: string): Rendered {
  if (request.method !== 'GET' && request.method !== 'HEAD') return { status: 405, body: { message: error.message } }
  const raw = request.originalUrl ?? request.raw.url ?? request.url
  const queryAt = raw.indexOf('?')
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt)
  const query = queryAt === -1 ? '' : raw.slice(queryAt)
  const moved = path.replace(/^(\/api\/v4\/projects\/)[^/]+?(\.json)?(?=\/|$)/, `$1${error.projectId}$2`)
  const location = `${externalUrl}${moved}${query}`
  return { status: 301, body: `This resource has been moved permanently to ${location}`, headers: { location }, text: true }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const rendered = error instanceof ProjectMoved ? renderMoved(error, request, request.ctx?.config.externalUrl ?? '') : renderError(error)
  if (rendered.status >= 500) request.log.error({ err: error }, 'request failed')
  if (rendered.headers) reply.headers(rendered.headers)
  reply.code(rendered.status)
  if (rendered.text) return reply.type(rendered.contentType ?? 'text/plain; charset=utf-8').send(rendered.body)
  return reply.type(rendered.contentType ?? 'application/json').send(JSON.stringify(rendered.body))
}
