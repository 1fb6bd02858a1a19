import { OAUTH_SCOPES } from '../../core/scopes.js'

/** Doorkeeper's validation messages (DK config/locales/en.yml; spec gitlab-behaviour-auth.md 3.10). */
export const MESSAGES = {
  blank: "can't be blank",
  invalidUri: 'must be a valid URI.',
  relativeUri: 'must be an absolute URI.',
  fragmentPresent: 'cannot contain a fragment.',
  unspecifiedScheme: 'must specify a scheme.',
  forbiddenUri: 'is forbidden by the server.',
  scopesNotConfigured: "doesn't match configured on the server.",
} as const

/** Schemes no redirect may use (GL config/initializers/doorkeeper.rb forbid_redirect_uri). */
const FORBIDDEN_SCHEMES = new Set(['data', 'vbscript', 'javascript'])

/** Out-of-band "redirect" values Doorkeeper accepts without parsing (DK OAuth::NonStandard). */
const OUT_OF_BAND_URIS = new Set(['urn:ietf:wg:oauth:2.0:oob', 'urn:ietf:wg:oauth:2.0:oob:auto'])

// RFC 3986 character classes, as Ruby's URI parser enforces them.
const PCT = '%[0-9A-Fa-f]{2}'
const UNRESERVED = 'A-Za-z0-9\\-._~'
const SUB_DELIMS = "!$&'()*+,;="
const PATH = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:@/]|${PCT})*$`)
const QUERY = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:@/?]|${PCT})*$`)
const USERINFO = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}:]|${PCT})*$`)
const REG_NAME = new RegExp(`^(?:[${UNRESERVED}${SUB_DELIMS}]|${PCT})*$`)
const IP_LITERAL = /^\[[0-9A-Fa-f:.]+\]$|^\[v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]$/
const URI_PARTS = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s

interface ParsedUri {
  scheme: string | null
  host: string | null
  /** What follows `scheme:` when it is neither an authority nor an absolute path (`localhost:3000`, `urn:…`). */
  opaque: string | null
  fragment: string | null
}

function parseAuthority(authority: string): string | null | undefined {
  const at = authority.lastIndexOf('@')
  const userinfo = at === -1 ? null : authority.slice(0, at)
  const hostPort = authority.slice(at + 1)
  if (userinfo !== null && !USERINFO.test(userinfo)) return undefined
  const bracketEnd = hostPort.startsWith('[') ? hostPort.indexOf(']') : -1
  const colon = hostPort.indexOf(':', bracketEnd === -1 ? 0 : bracketEnd)
  const host = colon === -1 ? hostPort : hostPort.slice(0, colon)
  const port = colon === -1 ? '' : hostPort.slice(colon + 1)
  if (!/^\d*$/.test(port)) return undefined
  if (host.startsWith('[') ? !IP_LITERAL.test(host) : !REG_NAME.test(host)) return undefined
  return host
}

/** Splits a URI reference as Ruby's RFC 3986 parser does; undefined when it would raise InvalidURIError. */
function parseUri(text: string): ParsedUri | undefined {
  const match = URI_PARTS.exec(text)
  if (!match) return undefined
  const [, scheme, authority, path, query, fragment] = match
  let host: string | null = null
  if (authority !== undefined) {
    const parsed = parseAuthority(authority)
    if (parsed === undefined) return undefined
    host = parsed
  }
  if (!PATH.test(path)) return undefined
  if (query !== undefined && !QUERY.test(query)) return undefined
  if (fragment !== undefined && !QUERY.test(fragment)) return undefined
  // A relative reference's first segment cannot hold a colon (RFC 3986 path-noscheme).
  if (scheme === undefined && authority === undefined && path.split('/')[0].includes(':')) return undefined
  const isOpaque = scheme !== undefined && authority === undefined && path !== '' && !path.startsWith('/')
  return {
    scheme: scheme === undefined ? null : scheme.toLowerCase(),
    host,
    opaque: isOpaque ? path : null,
    fragment: fragment ?? null,
  }
}

/** The registered redirect URIs: Doorkeeper splits the field on whitespace. */
export function splitRedirectUris(text: string): string[] {
  return text.split(/[ \t\n\v\f\r]+/).filter((uri) => uri !== '')
}

/**
 * Doorkeeper's RedirectUriValidator (DK lib/doorkeeper/orm/active_record/redirect_uri_validator.rb), in its order.
 * One difference: a reference without a scheme (`//host/cb`) is refused as relative, since no client could be sent there.
 */
export function redirectUriErrors(text: string): string[] {
  const uris = splitRedirectUris(text)
  if (uris.length === 0) return [MESSAGES.blank]
  const errors: string[] = []
  for (const value of uris) {
    if (OUT_OF_BAND_URIS.has(value)) continue
    const uri = parseUri(value)
    // Ruby raises on the first unparsable URI, which ends the validation.
    if (!uri) return [...errors, MESSAGES.invalidUri]
    if (uri.scheme !== null && FORBIDDEN_SCHEMES.has(uri.scheme)) errors.push(MESSAGES.forbiddenUri)
    if (uri.fragment !== null) errors.push(MESSAGES.fragmentPresent)
    if (uri.opaque !== null || uri.scheme === 'localhost') errors.push(MESSAGES.unspecifiedScheme)
    if (uri.scheme === null) errors.push(MESSAGES.relativeUri)
    if ((uri.scheme === 'http' || uri.scheme === 'https') && !uri.host) errors.push(MESSAGES.invalidUri)
  }
  return errors
}

/** Scope names, split on whitespace, each once, in the order given (DK OAuth::Scopes). */
export function normalizeScopes(scopes: string | readonly string[]): string[] {
  const names = typeof scopes === 'string' ? scopes.split(/[ \t\n\v\f\r]+/) : scopes.flatMap((scope) => scope.split(/[ \t\n\v\f\r]+/))
  return [...new Set(names.filter((name) => name !== ''))]
}

/** Every scope must be one the server knows (DK enforce_configured_scopes); none at all is allowed. */
export function scopeErrors(scopes: readonly string[]): string[] {
  return scopes.every((scope) => OAUTH_SCOPES.includes(scope)) ? [] : [MESSAGES.scopesNotConfigured]
}

/** Rails' blank?: empty or only whitespace. */
export function isBlank(text: string): boolean {
  return text.trim() === ''
}
