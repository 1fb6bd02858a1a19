import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import buildSerializer from 'fast-json-stringify'
import type { Context } from '../core/context.js'
import { authorizeAdmin } from '../core/caller.js'
import { Unauthorized } from '../core/errors.js'
import { parseParams } from './params.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for API routes once the caller is known. */
    ctx: Context
  }
  interface FastifyContextConfig {
    /** What the API router declares of a route, for the OpenAPI document (openapi.ts). */
    api?: ApiRouteMeta
  }
}

export interface ApiRouteMeta {
  params: TObject
  authenticated: boolean
  scopes: readonly string[]
  response?: Record<number, TSchema>
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface ApiRouteOptions<P extends TObject> {
  /** Every parameter the route reads, from path, query and body alike. */
  params?: P
  /** Anonymous callers get 401 unless this is false. */
  authenticated?: boolean
  /** Token scopes accepted besides `api` (and `read_api` on reads), e.g. `read_user`. */
  scopes?: readonly string[]
  /** Serialization schemas by status; fields not listed are dropped. */
  response?: Record<number, TSchema>
  /** Runs once the caller is known and before params are checked, as Grape's `before` blocks do (e.g. admin-only resources). */
  before?: (request: FastifyRequest, raw: Record<string, unknown>) => void | Promise<void>
}

export type ApiRequest<P extends TObject> = FastifyRequest & { input: Static<P> }
export type ApiHandler<P extends TObject> = (request: ApiRequest<P>, reply: FastifyReply) => Promise<unknown>

/** Builds the per-request Context; app.ts supplies it (authentication, throttling, settings). */
export type ContextBuilder = (request: FastifyRequest, params: Record<string, unknown>, scopes: readonly string[]) => Promise<Context>

/** What routes outside /api/v4 (pages, OAuth endpoints) need from the app. */
export interface PlainRouteDeps {
  /** The request's context as an anonymous caller (settings, clock, database). */
  context(request: FastifyRequest): Promise<Context>
  /** Enforces the protected-paths rate limit (sign-in, /oauth/token) for this caller; throws Throttled. */
  throttleProtectedPath(request: FastifyRequest, ctx: Context): Promise<void>
}

const noParams = Type.Object({})

/** A `before` step for administrators' resources (GL `before { authenticated_as_admin! }`): refusals come before param errors. */
export function adminOnly(request: FastifyRequest) {
  authorizeAdmin(request.ctx.caller)
}

/**
 * The serializer's copy of a response schema declares no field required: fast-json-stringify writes
 * required fields before optional ones, which would break GitLab's field order, and omits absent ones.
 */
function inDeclaredOrder(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inDeclaredOrder)
  if (schema === null || typeof schema !== 'object') return schema
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required' && Array.isArray(value)) continue
    copy[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, inDeclaredOrder(v)]))
        : inDeclaredOrder(value)
  }
  return copy
}

/** The serializer's copy of a response schema (fields in declared order), made when its serializer is built. */
export function serializerSchema(schema: TSchema): unknown {
  return inDeclaredOrder(schema)
}

type Serializer = (payload: unknown) => string
const serializers = new WeakMap<TSchema, Serializer>()
/** Fastify's mark of a reply without a serializer of its own. */
const noSerializer = null as unknown as Serializer

/**
 * A response schema's serializer, generated when a route first answers with it and shared by every route (and kept
 * entity) that does. Generating all of them at start took most of the process's memory.
 */
export function serializerFor(schema: TSchema): Serializer {
  let serialize = serializers.get(schema)
  if (!serialize) serializers.set(schema, (serialize = buildSerializer(serializerSchema(schema) as object)))
  return serialize
}

/** Merges params as Rack does (body over query), then path params over both (issue: request pipeline). */
export function mergedParams(request: FastifyRequest): Record<string, unknown> {
  const body = request.body
  const merged: Record<string, unknown> = { ...(request.query as Record<string, unknown>) }
  if (body && typeof body === 'object' && !Array.isArray(body)) Object.assign(merged, body)
  Object.assign(merged, request.params as Record<string, unknown>)
  return merged
}

/** Registers API routes under /api/v4 with one pipeline: caller, throttle, params, handler. */
export class ApiRouter {
  constructor(
    private readonly app: FastifyInstance,
    private readonly buildContext: ContextBuilder,
  ) {}

  route<P extends TObject = typeof noParams>(method: Method, url: string, options: ApiRouteOptions<P>, handler: ApiHandler<P>) {
    const schema = (options.params ?? noParams) as P
    const scopes = options.scopes ?? []
    const authenticated = options.authenticated ?? true
    const buildContext = this.buildContext
    const response = options.response
    this.app.route({
      method,
      url: `/api/v4${url}`,
      config: { api: { params: schema, authenticated, scopes, response } },
      // The serializer is picked here rather than from a Fastify response schema: Fastify keeps its own table per route,
      // keyed by status code, which V8 stores as an array of 2.5 KB or more (about 1.5 MB over every route).
      preSerialization: response
        ? (_request, reply, payload, done) => {
            const schema = response[reply.statusCode]
            if (schema) {
              const serialize = serializerFor(schema)
              // For this payload only: an error answered after it (a failed serialization) is sent as it would be.
              reply.serializer((value) => {
                reply.serializer(noSerializer)
                return serialize(value)
              })
            }
            done(null, payload)
          }
        : undefined,
      async handler(request, reply) {
        const raw = mergedParams(request)
        request.ctx = await buildContext(request, raw, scopes)
        if (authenticated && !request.ctx.caller.user) throw new Unauthorized()
        if (options.before) await options.before(request, raw)
        const typed = request as ApiRequest<P>
        typed.input = parseParams(schema, raw)
        return handler(typed, reply)
      },
    })
  }

  get<P extends TObject>(url: string, options: ApiRouteOptions<P>, handler: ApiHandler<P>) {
    this.route('GET', url, options, handler)
  }
  post<P extends TObject>(url: string, options: ApiRouteOptions<P>, handler: ApiHandler<P>) {
    this.route('POST', url, options, handler)
  }
  put<P extends TObject>(url: string, options: ApiRouteOptions<P>, handler: ApiHandler<P>) {
    this.route('PUT', url, options, handler)
  }
  patch<P extends TObject>(url: string, options: ApiRouteOptions<P>, handler: ApiHandler<P>) {
    this.route('PATCH', url, options, handler)
  }
  delete<P extends TObject>(url: string, options: ApiRouteOptions<P>, handler: ApiHandler<P>) {
    this.route('DELETE', url, options, handler)
  }
}
