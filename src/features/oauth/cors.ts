import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'

/**
 * Cross-origin access to the OAuth endpoints, as GitLab configures rack-cors for them (GL config/application.rb:
 * origins '*', credentials false) and as rack-cors answers (cyu/rack-cors lib/rack/cors.rb, resource.rb).
 */
export interface CorsPolicy {
  /** Methods a preflight may ask for, upper-case. */
  methods: readonly string[]
  /** Request headers a preflight may ask for besides the CORS-safelisted ones, lower-case. */
  headers: readonly string[]
}

/** /oauth/token and /oauth/revoke: POST with an Authorization header (spec: OAuth 2.0 provider, CORS). */
export const OAUTH_TOKEN_CORS: CorsPolicy = { methods: ['POST'], headers: ['authorization'] }
/** /oauth/userinfo (doorkeeper-openid_connect route). */
export const OAUTH_USERINFO_CORS: CorsPolicy = { methods: ['GET', 'HEAD', 'POST'], headers: ['authorization'] }
/** /oauth/discovery/keys, /.well-known/openid-configuration, /.well-known/webfinger: reads without extra headers. */
export const OPENID_DISCOVERY_CORS: CorsPolicy = { methods: ['GET', 'HEAD'], headers: [] }

/** rack-cors' default max_age. */
const MAX_AGE_SECONDS = '7200'

/** rack-cors always accepts these in a preflight (Resource::CORS_SIMPLE_HEADERS). */
const SIMPLE_HEADERS = ['accept', 'accept-language', 'content-language', 'content-type']

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

/** Whether a preflight's method and headers are all allowed (rack-cors Resource#process_preflight). */
function isAllowedPreflight(policy: CorsPolicy, method: string, requestedHeaders: string | undefined): boolean {
  if (!policy.methods.includes(method.toUpperCase())) return false
  if (requestedHeaders === undefined) return true
  return requestedHeaders
    .split(/,\s*/)
    .filter((name) => name !== '')
    .every((name) => SIMPLE_HEADERS.includes(name.toLowerCase()) || policy.headers.includes(name.toLowerCase()))
}

/** The headers rack-cors sets for an allowed origin (Resource#to_headers; its empty Expose-Headers is never sent). */
function allowedOriginHeaders(policy: CorsPolicy): Record<string, string> {
  return {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': policy.methods.join(', '),
    'access-control-max-age': MAX_AGE_SECONDS,
  }
}

/** The response may differ by Origin, so caches must key on it (rack-cors adds Vary on every path it covers). */
function addVaryOrigin(reply: FastifyReply) {
  const vary = reply.getHeader('vary')
  const names = typeof vary === 'string' ? vary.split(/,\s*/).filter((name) => name !== '') : []
  if (!names.some((name) => name.toLowerCase() === 'origin')) names.push('Origin')
  reply.header('vary', names.join(', '))
}

/** An `onSend` hook giving a route's responses (errors included) the CORS headers of an actual cross-origin request. */
export function corsOnSend(policy: CorsPolicy) {
  return async function addCorsHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    if (headerValue(request, 'origin') !== undefined) {
      for (const [name, value] of Object.entries(allowedOriginHeaders(policy))) {
        // The application's own headers win (rack-cors merges its headers under the app's).
        if (!reply.hasHeader(name)) reply.header(name, value)
      }
    }
    addVaryOrigin(reply)
    return payload
  }
}

/**
 * Answers OPTIONS on `url`. A preflight (Origin and Access-Control-Request-Method) gets rack-cors' answer: 200
 * with an empty body, with the CORS headers when the method and headers asked for are allowed, without them
 * otherwise. Any other OPTIONS gets the app's usual 204 with `Allow` for the route's methods.
 */
export function registerPreflight(app: FastifyInstance, url: string, policy: CorsPolicy) {
  app.route({
    method: 'OPTIONS',
    url,
    async handler(request, reply) {
      const requestedMethod = headerValue(request, 'access-control-request-method')
      if (headerValue(request, 'origin') !== undefined && requestedMethod !== undefined) {
        const requestedHeaders = headerValue(request, 'access-control-request-headers')
        if (isAllowedPreflight(policy, requestedMethod, requestedHeaders)) {
          reply.headers(allowedOriginHeaders(policy))
          if (requestedHeaders) reply.header('access-control-allow-headers', requestedHeaders)
        }
        return reply.code(200).send()
      }
      await corsOnSend(policy)(request, reply, null)
      const methods = ROUTE_METHODS.filter((method) => app.hasRoute({ method, url }))
      return reply
        .code(204)
        .header('allow', ['OPTIONS', ...methods].join(', '))
        .send()
    },
  })
}

const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

const preflightsRegistered = new WeakMap<FastifyInstance, Set<string>>()

/**
 * Registers a route open to cross-origin callers: its responses carry the CORS headers, and OPTIONS on its URL
 * answers preflights. Several routes on one URL share one preflight route, registered with the first.
 */
export function registerCrossOriginRoute(app: FastifyInstance, policy: CorsPolicy, options: RouteOptions) {
  const hooks = options.onSend === undefined ? [] : Array.isArray(options.onSend) ? options.onSend : [options.onSend]
  app.route({ ...options, onSend: [...hooks, corsOnSend(policy)] as RouteOptions['onSend'] })
  let urls = preflightsRegistered.get(app)
  if (!urls) preflightsRegistered.set(app, (urls = new Set()))
  if (urls.has(options.url)) return
  urls.add(options.url)
  registerPreflight(app, options.url, policy)
}
