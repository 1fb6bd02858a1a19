import pino, { type LoggerOptions } from 'pino'

/** What a filtered value reads as in a log line, as in GitLab's logs. */
export const FILTERED = '[FILTERED]'

/**
 * Parameter names whose values never reach a log: GitLab's `config.filter_parameters` (config/application.rb),
 * Doorkeeper's additions, and this service's own secrets (`sentry_key`, `code_verifier`).
 *
 * Rails' ParameterFilter matches a Symbol anywhere in the name, case-insensitively, and a Regexp as written. Here
 * every rule is case-insensitive (a `PRIVATE_TOKEN=` query parameter is as secret as `private_token=`), so the
 * list filters a little more than GitLab does, never less. As in Rails, a nested name (`user[password]`) is
 * filtered when any of its keys matches.
 */
const CONTAINS = [
  'password',
  'secret',
  'certificate',
  'encrypted_key',
  'hook',
  'import_url',
  'otp_attempt',
  'sentry_dsn',
  'trace',
  'variables',
  'content',
  'sharedsecret',
]
const ENDS_WITH = ['token', 'key']
const EXACTLY = new Set([
  'body',
  'description',
  'note',
  'text',
  'title',
  'client_secret',
  'code',
  'code_verifier',
  'authentication_token',
  'access_token',
  'refresh_token',
])

function isFilteredKey(key: string): boolean {
  const name = key.toLowerCase()
  return EXACTLY.has(name) || ENDS_WITH.some((end) => name.endsWith(end)) || CONTAINS.some((word) => name.includes(word))
}

/** Whether a parameter's value is kept out of logs; `name` as sent, percent-encoded or not. */
export function isFilteredParameter(name: string): boolean {
  // Byte by byte, so that a malformed escape elsewhere in the name cannot hide a secret one.
  const decoded = name.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  return decoded.split(/[[\]]+/).some((key) => key !== '' && isFilteredKey(key))
}

function filterPair(pair: string): string {
  const equals = pair.indexOf('=')
  const name = equals === -1 ? pair : pair.slice(0, equals)
  return equals !== -1 && isFilteredParameter(name) ? `${name}=${FILTERED}` : pair
}

/** The credentials of a URL (`scheme://user:password@`): both parts go, as GitLab's UrlSanitizer masks both. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi

/** A request target or absolute URL as it may be logged: credentials and secret query values replaced by [FILTERED]. */
export function filterUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const path = (queryAt === -1 ? url : url.slice(0, queryAt)).replace(USERINFO, `$1${FILTERED}@`)
  if (queryAt === -1) return path
  const hashAt = url.indexOf('#', queryAt)
  const query = hashAt === -1 ? url.slice(queryAt + 1) : url.slice(queryAt + 1, hashAt)
  const fragment = hashAt === -1 ? '' : url.slice(hashAt)
  return `${path}?${query
    .split(/(?=[&;])/)
    .map((part) => (/^[&;]/.test(part) ? part[0] + filterPair(part.slice(1)) : filterPair(part)))
    .join('')}${fragment}`
}

/**
 * A `name=value` pair inside free text (a URL's query in an error message, a git command line, an X-Sentry-Auth value):
 * it starts after a separator, a comma or a space and ends at one, or at a quote.
 */
const PARAMETER_IN_TEXT = /(^|[?&;,\s])([^=&;,\s#"'<>]+)=([^&;,\s#"'<>]*)/g

/** Free text as it may be logged: URLs' credentials and secret query values within it replaced by [FILTERED]. */
export function filterText(text: string): string {
  return text
    .replace(USERINFO, `$1${FILTERED}@`)
    .replace(PARAMETER_IN_TEXT, (whole, separator: string, name: string) =>
      isFilteredParameter(name) ? `${separator}${name}=${FILTERED}` : whole,
    )
}

/** Headers that carry credentials; never logged, whoever logs a `headers` object. */
const SECRET_HEADERS = ['authorization', 'private-token', 'job-token', 'cookie', 'set-cookie', 'x-sentry-auth']

/** Error properties that name what failed rather than hold a secret, though a parameter of that name would be filtered. */
const ERROR_FIELDS = new Set(['type', 'message', 'stack', 'code'])

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return filterText(value)
  if (depth > 4 || typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = !ERROR_FIELDS.has(key) && isFilteredKey(key) ? FILTERED : scrub(item, depth + 1)
  }
  return out
}

interface LoggedRequest {
  method: string
  url: string
  /** The URL as the client sent it, before `rewriteUrl`. */
  originalUrl?: string
  host?: string
  ip?: string
  headers?: Record<string, string | string[] | undefined>
  socket?: { remotePort?: number }
}

/**
 * The options of every logger of this service (Fastify's and the job worker's): request lines carry the method, the
 * filtered URL as sent and the peer but no header; errors lose their secret-named fields (a request `body`, say) and the
 * credentials in their messages; every message string is filtered; credential headers are redacted wherever logged.
 */
export function redactingLoggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: SECRET_HEADERS.flatMap((name) => ['headers', 'req.headers', 'res.headers', '*.headers'].map((at) => `${at}["${name}"]`)),
      censor: FILTERED,
    },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: filterUrl(request.originalUrl ?? request.url),
        version: request.headers?.['accept-version'],
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      err: (error: Error) => scrub(pino.stdSerializers.err(error), 0),
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg: unknown) => (typeof arg === 'string' ? filterText(arg) : arg)) as Parameters<typeof method>)
      },
    },
  }
}
