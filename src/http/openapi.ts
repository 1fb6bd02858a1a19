import { STATUS_CODES } from 'node:http'
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { OAUTH_SCOPES } from '../core/scopes.js'
import { acceptedScopes } from './authenticate.js'
import type { ApiRouteMeta, ApiRouter } from './route.js'

/**
 * The OpenAPI 3.1 document of /api/v4, drawn from the routes as Fastify registers them: the API router's routes
 * carry their TypeBox schemas (JSON Schema, which OpenAPI 3.1 takes as it is) in their route config.
 */

export const API_PREFIX = '/api/v4'

interface RecordedRoute {
  method: string
  url: string
  api: ApiRouteMeta | undefined
}

type Json = Record<string, unknown>

/** A path parameter as Fastify takes it: `:name`, maybe with a pattern, `:id(^\\d+$)`. */
const PARAM = /:(\w+)(?:\(.*?\)(?=\/|$))?/g

const READ_METHODS = new Set(['GET', 'DELETE'])

/** The cookie a signed-in browser sends (features/sessions SESSION_COOKIE); the API accepts it as GitLab does. */
const SESSION_COOKIE = '_svc_session'

const SCOPE_DESCRIPTIONS: Record<string, string> = {
  api: 'Read and write access to the whole API',
  read_api: 'Read access to the whole API',
  read_user: 'Read access to the authenticated user',
  read_repository: 'Read access to repositories (Git over HTTP)',
  write_repository: 'Read and write access to repositories (Git over HTTP)',
  sudo: 'Act as another user (administrators)',
  admin_mode: 'Act as an administrator when Admin Mode is on',
  openid: 'Authenticate with OpenID Connect',
  profile: 'Read the profile through OpenID Connect',
  email: 'Read the email address through OpenID Connect',
}

const SECURITY_SCHEMES = {
  private_token_header: {
    type: 'apiKey',
    in: 'header',
    name: 'PRIVATE-TOKEN',
    description: 'A personal, impersonation, project or group access token',
  },
  private_token_query: { type: 'apiKey', in: 'query', name: 'private_token', description: 'The same token as a query parameter' },
  bearer: { type: 'http', scheme: 'bearer', description: 'A personal access token or an OAuth access token' },
  access_token_query: { type: 'apiKey', in: 'query', name: 'access_token', description: 'An OAuth access token as a query parameter' },
  oauth2: {
    type: 'oauth2',
    description: "OAuth 2.0 in GitLab's (Doorkeeper's) dialect",
    flows: {
      authorizationCode: {
        authorizationUrl: '/oauth/authorize',
        tokenUrl: '/oauth/token',
        refreshUrl: '/oauth/token',
        scopes: Object.fromEntries(OAUTH_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope] ?? `The ${scope} scope`])),
      },
      password: {
        tokenUrl: '/oauth/token',
        refreshUrl: '/oauth/token',
        scopes: Object.fromEntries(OAUTH_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope] ?? `The ${scope} scope`])),
      },
    },
  },
  session_cookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The session of a signed-in browser' },
}

const ERROR = { $ref: '#/components/schemas/Error' }

/** A plain JSON copy of a TypeBox schema: TypeBox's symbol keys and any `$id` (shared schemas appear many times) go. */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) => (key === '$id' ? undefined : value)) as Json
}

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: ERROR } } }
}

function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replace(PARAM, 'by_$1').replace(/\W+/g, '_'))
  return [method.toLowerCase(), ...words].join('_')
}

function operation(route: RecordedRoute): Json {
  const path = route.url.slice(API_PREFIX.length) || '/'
  const pathNames = [...path.matchAll(PARAM)].map((match) => match[1] as string)
  const api = route.api
  const properties = (api?.params.properties ?? {}) as Record<string, TSchema>
  const required = new Set(api?.params.required ?? [])
  const parameters: Json[] = pathNames.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: properties[name] ? plain(properties[name]) : { type: 'string' },
  }))
  const others = Object.entries(properties).filter(([name]) => !pathNames.includes(name))
  const op: Json = { operationId: operationId(route.method, path), tags: [path.split('/')[1] || 'api'] }
  if (READ_METHODS.has(route.method)) {
    for (const [name, schema] of others) {
      const object = schema.type === 'object'
      parameters.push({
        name,
        in: 'query',
        required: required.has(name) && schema.default === undefined,
        schema: plain(schema),
        ...(object ? { style: 'deepObject', explode: true } : {}),
      })
    }
  } else if (others.length > 0) {
    // Body params are read from JSON or form bodies alike (and from the query string, as Rack merges them).
    const body: Json = { type: 'object', properties: Object.fromEntries(others.map(([name, schema]) => [name, plain(schema)])) }
    const requiredNames = others.map(([name]) => name).filter((name) => required.has(name) && properties[name]?.default === undefined)
    if (requiredNames.length > 0) body.required = requiredNames
    op.requestBody = {
      required: requiredNames.length > 0,
      content: { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body } },
    }
  }
  if (!api) {
    op.description = 'Registered outside the API router: its own content types, credentials and answers.'
    if (route.method !== 'GET') op.requestBody = { content: { '*/*': { schema: {} } } }
  }
  if (parameters.length > 0) op.parameters = parameters

  const responses: Json = {}
  for (const [status, schema] of Object.entries(api?.response ?? {})) {
    responses[status] = { description: STATUS_CODES[status] ?? 'Response', content: { 'application/json': { schema: plain(schema) } } }
  }
  if (Object.keys(responses).length === 0) responses['2XX'] = { description: 'Success' }
  if (api) {
    if (Object.keys(properties).length > 0) responses['400'] ??= errorResponse('A parameter is missing or invalid')
    if (api.authenticated) responses['401'] ??= errorResponse('No valid credentials')
    responses['403'] ??= errorResponse('Not allowed, or the token lacks every accepted scope')
    if (pathNames.length > 0) responses['404'] ??= errorResponse('Not found, or not visible to the caller')
    responses['429'] ??= errorResponse('Rate limited')
    op.security = security(route.method, api)
  }
  op.responses = responses
  return op
}

/** Any one credential opens a route; OAuth tokens need one of the route's scopes (each alternative is one requirement). */
function security(method: string, api: ApiRouteMeta): Json[] {
  const requirements: Json[] = [
    { private_token_header: [] },
    { private_token_query: [] },
    { bearer: [] },
    { access_token_query: [] },
    ...acceptedScopes(method, api.scopes).map((scope) => ({ oauth2: [scope] })),
    { session_cookie: [] },
  ]
  if (!api.authenticated) requirements.push({})
  return requirements
}

/** Records every /api/v4 route as Fastify registers it. HEAD is left out: Fastify answers it beside every GET. */
export class RouteCatalog {
  private readonly routes: RecordedRoute[] = []

  watch(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith(API_PREFIX)) return
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      for (const method of methods) {
        if (method !== 'HEAD') this.routes.push({ method, url: route.url, api: route.config?.api })
      }
    })
  }

  /** The document; `servers` is relative, so it holds wherever the service is reached. */
  document(version: string): Json {
    const paths: Record<string, Json> = {}
    for (const route of this.routes) {
      const path = (route.url.slice(API_PREFIX.length) || '/').replace(PARAM, '{$1}')
      paths[path] ??= {}
      ;(paths[path] as Json)[route.method.toLowerCase()] = operation(route)
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'svc REST API v4',
        version,
        description: "GitLab's REST API v4 as svc serves it.",
      },
      servers: [{ url: API_PREFIX }],
      paths,
      components: {
        schemas: {
          Error: {
            type: 'object',
            description: "GitLab's error body: `message` (a string, or errors by attribute) or `error`",
            properties: { message: {}, error: { type: 'string' }, error_description: { type: 'string' } },
          },
        },
        securitySchemes: SECURITY_SCHEMES,
      },
    }
  }
}

/**
 * Serves the document at /api/v4/openapi.json (and /api/v4/openapi, as every API path takes an optional `.json`).
 * GitLab serves no OpenAPI document over HTTP (its doc/api/openapi/openapi_v2.yaml lives in its repository), so no
 * GitLab path is taken; /api/v4 is where its clients already look.
 */
export function registerOpenApiRoute(api: ApiRouter, catalog: RouteCatalog, version: string) {
  let document: Json | null = null
  api.get('/openapi', { authenticated: false }, async () => (document ??= catalog.document(version)))
}
