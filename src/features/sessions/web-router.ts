import { stringifySetCookie } from 'cookie'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import FindMyWay from 'find-my-way'
import type { Caller } from '../../core/caller.js'
import { NotFound } from '../../core/errors.js'
import type { Context } from '../../core/context.js'
import { MAX_REQUEST_LINE_BYTES } from '../../http/request-parsing.js'
import { mergedParams, type PlainRouteDeps } from '../../http/route.js'
import { ASSETS, CONTENT_SECURITY_POLICY, page, html, type Html, type PageOptions } from '../../web/html.js'
import {
  csrfTokenOf,
  endSession,
  endUserSessions,
  findRequestSession,
  isValidCsrfToken,
  keptFlash,
  SESSION_COOKIE,
  setFlash,
  setReturnTo,
  startSession,
  type Flash,
  type Session,
} from './service.js'

export type WebMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What a page handler gets besides the request: the visitor's context, session and form. */
export interface WebRequest {
  request: FastifyRequest
  reply: FastifyReply
  /** The caller is the signed-in user (credential kind 'session') or anonymous. */
  ctx: Context
  /** Query and form fields merged, body over query, path params over both. */
  params: Record<string, unknown>
  /** The session the cookie names, or null when the visitor has none yet. */
  session: Session | null
  /** The session, started now (cookie set) when the visitor has none. */
  ensureSession(): Promise<Session>
  /**
   * Replaces the session, e.g. by a new one on sign-in so an old cookie cannot ride along (session fixation).
   * A persistent cookie ("remember me") outlives the browser until the session's expiry.
   */
  replaceSession(next: { session: Session; cookieValue: string }, options?: { persistent?: boolean }): void
  /** Ends the cookie. */
  clearSession(): void
  /** The administrator browsing as the signed-in user (GitLab's impersonation), by id; null otherwise. */
  readonly impersonatorId: number | null
  /**
   * Signs this browser in as `userId` in a new session that replaces this one, cookie and all; `impersonatorId` names
   * the administrator who browses as them, null for the user's own session.
   */
  switchUser(userId: number, impersonatorId: number | null): Promise<void>
  /** A CSRF token for a form on this page (starts a session when needed). */
  csrfToken(): Promise<string>
  /**
   * Leaves a notice or an alert for the next page this visitor sees, once (Rails' flash), e.g. before a redirect;
   * `values` go with it, for that page alone to read (see flashed).
   */
  flash(kind: Flash['kind'], text: string, values?: Record<string, string>): Promise<void>
  /** A value the previous page left with its flash; gone once this page is rendered, so it shows only once. */
  flashed(name: string): string | null
  /** Signs the user out of every session they have, this one included; the rest of the request has a visitor's session. */
  signOutEverywhere(): Promise<void>
  /** Sends a page in the common layout, with the signed-in user in its header. */
  render(
    options: Omit<PageOptions, 'signedInAs' | 'csrfToken' | 'impersonating' | 'adminArea'>,
    body: Html,
    status?: number,
  ): Promise<FastifyReply>
  /** A 302 (or `status`) to a path of this instance or an absolute URL. */
  redirect(location: string, status?: 301 | 302): FastifyReply
  /** Devise's authenticate_user!: a 302 to sign in, coming back to this page afterwards when it was a page view. */
  redirectToSignIn(): Promise<FastifyReply>
  /** The 404 page; a visitor who has not signed in goes to sign in instead. */
  notFound(): Promise<FastifyReply>
}

/** Where people sign in. */
export const SIGN_IN_PATH = '/users/sign_in'

// GitLab's 404 page (public/404.html): the same answer whether the page does not exist or the visitor may not see it.
const NOT_FOUND = html`<div class="empty-state">
  <h1>404: Page not found</h1>
  <p>Make sure the address is correct and the page has not moved. Please contact your administrator if you think this is a mistake.</p>
  <p><a href="/">Go to the home page</a> · <a href="/explore">Explore projects</a></p>
</div>`

export type WebHandler = (web: WebRequest) => Promise<unknown>

export interface WebRouteOptions {
  /** POSTs count against the protected-paths rate limit (sign-in). */
  protectedPath?: boolean
}

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * A page route's project part: `/<namespace>/…/<project>`, at any of GitLab's 20 namespace depths. The handler finds
 * the project's full path in the request's `project_full_path` param, or in `s1`…`sN` and `project`.
 */
export const PROJECT_PAGE = '/:project_full_path+'

/** GitLab's deepest group nesting (GL Namespace::NUMBER_OF_ANCESTORS_ALLOWED). */
const MAX_NAMESPACE_DEPTH = 20

/** A route at each namespace depth: `/:s1/…/:sN/:project<suffix>`. */
function routesAtEveryDepth(suffix: string): string[] {
  return Array.from({ length: MAX_NAMESPACE_DEPTH }, (_, depth) => {
    const namespace = Array.from({ length: depth + 1 }, (_, n) => `/:s${n + 1}`).join('')
    return `${namespace}/:project${suffix}`
  })
}

/** The project's full path from the part of a path before `/-/`, decoded per segment; null when it cannot name one. */
function projectPathIn(part: string): string | null {
  const segments = part.split('/')
  if (segments.length < 2 || segments.length > MAX_NAMESPACE_DEPTH + 1 || segments.includes('')) return null
  try {
    return segments.map((segment) => decodeURIComponent(segment)).join('/')
  } catch {
    return null
  }
}

/** Rails' page for a form without a valid authenticity token (ActionController::InvalidAuthenticityToken). */
const REJECTED = html`<h1>The change you requested was rejected.</h1>
  <p>Maybe you tried to change something you didn't have access to, or your session expired. Reload the page and try again.</p>`

/** Rails' body for a redirect. */
export function redirectBody(location: string): string {
  return html`<html><body>You are being <a href="${location}">redirected</a>.</body></html>`.text
}

/**
 * Whether a GET opens a page rather than fetching something for one: browsers say so (`Sec-Fetch-Dest`), and an
 * image's request asks for images first; a request that says neither (a script, curl) counts as a page, as Rails
 * takes a request without a format for HTML.
 */
function isNavigation(request: FastifyRequest): boolean {
  const destination = request.headers['sec-fetch-dest']
  if (typeof destination === 'string' && destination !== 'document') return false
  return !/^image\//.test(request.headers.accept ?? '')
}

/**
 * Cookies are sent only over HTTPS when the instance is reached by HTTPS: its external URL says so, or the request
 * came over TLS (request.protocol reads X-Forwarded-Proto from trusted proxies alone).
 */
function cookieOptions(ctx: Context, request: FastifyRequest) {
  const secure = ctx.config.externalUrl.startsWith('https:') || request.protocol === 'https'
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure }
}

function sessionCaller(session: Session | null, user: Caller['user']): Caller {
  if (!session || !user) return { user: null, credential: null, sudoFrom: null }
  return { user, credential: { kind: 'session', id: session.id, scopes: [] }, sudoFrom: null }
}

/**
 * Server-rendered pages: the session from `_svc_session`, CSRF checked on every write (the
 * `authenticity_token` field or an `X-CSRF-Token` header), and Rails' `_method` override so plain
 * forms can PUT and DELETE.
 */
export class WebRouter {
  private readonly handlers = new Map<string, Map<WebMethod, { handler: WebHandler; options: WebRouteOptions }>>()
  /**
   * Project pages under `/-/`, by what follows the project's path: one catch-all route reaches them, where a route
   * per namespace depth would add twenty to the server's router for each.
   */
  private projectPages: ReturnType<typeof FindMyWay> | null = null

  constructor(
    private readonly app: FastifyInstance,
    private readonly deps: PlainRouteDeps,
  ) {
    for (const asset of ASSETS) {
      app.get(asset.path, (_request, reply) =>
        reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').send(asset.body),
      )
    }
    // Browsers ask for it whatever the page links.
    const [, , icon] = ASSETS
    app.get('/favicon.ico', (_request, reply) => reply.type(icon.type).header('cache-control', 'public, max-age=86400').send(icon.body))
  }

  get(url: string, handler: WebHandler, options: WebRouteOptions = {}) {
    this.route('GET', url, handler, options)
  }
  post(url: string, handler: WebHandler, options: WebRouteOptions = {}) {
    this.route('POST', url, handler, options)
  }
  put(url: string, handler: WebHandler, options: WebRouteOptions = {}) {
    this.route('PUT', url, handler, options)
  }
  delete(url: string, handler: WebHandler, options: WebRouteOptions = {}) {
    this.route('DELETE', url, handler, options)
  }

  /** Whether `url` is a page route (the 405 answer of unknown methods is the API's, not the pages'). */
  serves(url: string): boolean {
    return this.handlers.has(url) || url === '/*'
  }

  route(method: WebMethod, url: string, handler: WebHandler, options: WebRouteOptions = {}) {
    if (url.startsWith(PROJECT_PAGE)) {
      const suffix = url.slice(PROJECT_PAGE.length)
      if (suffix.startsWith('/-/')) return this.projectRoute(method, url, suffix, handler, options)
      for (const depthUrl of routesAtEveryDepth(suffix)) this.addRoute(method, depthUrl, handler, options, true)
      return
    }
    this.addRoute(method, url, handler, options, false)
  }

  private addRoute(method: WebMethod, url: string, handler: WebHandler, options: WebRouteOptions, atDepth: boolean) {
    const isNewWriteUrl = this.remember(method, url, handler, options)
    const dispatch = (request: FastifyRequest, reply: FastifyReply) =>
      // `/:s1/…/:project` also matches a shallower project's `/-/` page, taking `-` for a group; no group is named so.
      atDepth && Object.values(request.params as Record<string, string>).includes('-')
        ? this.dispatchProjectPage(request, reply)
        : this.dispatch(url, request, reply)
    if (method === 'GET') this.app.route({ method: ['GET', 'HEAD'], url, handler: dispatch })
    // Every write method of a URL shares one route per real method; POST also carries `_method` overrides.
    else if (isNewWriteUrl) this.app.route({ method: [...WRITE_METHODS], url, handler: dispatch })
  }

  /** Keeps the handler; true when it is the URL's first write method. */
  private remember(method: WebMethod, url: string, handler: WebHandler, options: WebRouteOptions): boolean {
    let byMethod = this.handlers.get(url)
    if (!byMethod) {
      byMethod = new Map()
      this.handlers.set(url, byMethod)
    }
    const isNewWriteUrl = method !== 'GET' && ![...byMethod.keys()].some((known) => known !== 'GET')
    byMethod.set(method, { handler, options })
    return isNewWriteUrl
  }

  private projectRoute(method: WebMethod, url: string, suffix: string, handler: WebHandler, options: WebRouteOptions) {
    const isNewWriteUrl = this.remember(method, url, handler, options)
    if (!this.projectPages) {
      this.projectPages = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: MAX_REQUEST_LINE_BYTES })
      this.app.route({
        method: ['GET', 'HEAD', ...WRITE_METHODS],
        url: '/*',
        handler: (request, reply) => this.dispatchProjectPage(request, reply),
      })
    }
    const store = { url }
    if (method === 'GET') this.projectPages.on(['GET', 'HEAD'], suffix, () => {}, store)
    else if (isNewWriteUrl) this.projectPages.on([...WRITE_METHODS], suffix, () => {}, store)
  }

  /** A path no other route took: a project page when what follows `/<namespace>/<project>/-/` is one. */
  private async dispatchProjectPage(request: FastifyRequest, reply: FastifyReply) {
    const path = request.url.split('?', 1)[0]
    const at = path.indexOf('/-/')
    const fullPath = at > 0 && !path.startsWith('/api/') ? projectPathIn(path.slice(1, at)) : null
    const found = fullPath === null ? null : this.projectPages!.find(request.method as 'GET', path.slice(at))
    if (!found) return reply.callNotFound()
    request.params = { ...found.params, project_full_path: fullPath }
    return this.dispatch((found.store as { url: string }).url, request, reply)
  }

  private async dispatch(url: string, request: FastifyRequest, reply: FastifyReply) {
    // Page routes take any path of their shape (`/:namespace/:project`); the API's own paths are never pages.
    if (request.url.startsWith('/api/')) return reply.callNotFound()
    const params = mergedParams(request)
    const override = typeof params._method === 'string' ? params._method.toUpperCase() : null
    const method = (request.method === 'POST' && override ? override : request.method === 'HEAD' ? 'GET' : request.method) as WebMethod
    const route = this.handlers.get(url)?.get(method)
    // A method this URL's pages do not take is answered as a path no route serves.
    if (!route) return reply.callNotFound()
    const { web, user } = await this.webRequest(request, reply, params, method)
    if (method !== 'GET') {
      if (route.options.protectedPath) await this.deps.throttleProtectedPath(request, web.ctx)
      const token = params.authenticity_token ?? request.headers['x-csrf-token']
      if (!web.session || !isValidCsrfToken(web.session, token)) return web.render({ title: 'Rejected' }, REJECTED, 422)
    }
    if (user === null && web.session?.user_id) {
      // A session whose user can no longer sign in is over.
      web.clearSession()
    }
    try {
      return await route.handler(web)
    } catch (error) {
      // What a page's finders cannot find (or may not show) is the 404 page, as the API's is its 404 answer.
      if (error instanceof NotFound) return web.notFound()
      throw error
    }
  }

  /** The 404 page, for a browser's request that no route serves. */
  async notFoundPage(request: FastifyRequest, reply: FastifyReply) {
    const { web } = await this.webRequest(request, reply, mergedParams(request), 'GET')
    return web.notFound()
  }

  private async webRequest(request: FastifyRequest, reply: FastifyReply, params: Record<string, unknown>, method: WebMethod) {
    const baseContext = await this.deps.context(request)
    const found = await findRequestSession(baseContext.db, request.headers.cookie, baseContext.settings, baseContext.now())
    let session = found.session
    const user = found.user
    const ctx: Context = { ...baseContext, caller: sessionCaller(session, user) }
    const web: WebRequest = {
      request,
      reply,
      ctx,
      params,
      get session() {
        return session
      },
      async ensureSession() {
        if (session) return session
        const started = await startSession(
          ctx.db,
          { userId: null, ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
          ctx.settings,
          ctx.now(),
        )
        web.replaceSession(started)
        return started.session
      },
      replaceSession(next, options = {}) {
        session = next.session
        const expires = options.persistent ? { expires: new Date(next.session.expires_at) } : {}
        reply.header('set-cookie', stringifySetCookie(SESSION_COOKIE, next.cookieValue, { ...cookieOptions(ctx, request), ...expires }))
      },
      clearSession() {
        session = null
        reply.header('set-cookie', stringifySetCookie(SESSION_COOKIE, '', { ...cookieOptions(ctx, request), expires: new Date(0) }))
      },
      get impersonatorId() {
        return user && session ? session.impersonator_id : null
      },
      async switchUser(userId, impersonatorId) {
        const next = await startSession(
          ctx.db,
          { userId, impersonatorId, ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
          ctx.settings,
          ctx.now(),
        )
        if (session) await endSession(ctx.db, session)
        web.replaceSession(next)
      },
      async csrfToken() {
        return csrfTokenOf(await web.ensureSession())
      },
      async flash(kind, text, values) {
        await setFlash(ctx.db, await web.ensureSession(), values ? { kind, text, values } : { kind, text })
      },
      flashed(name) {
        return keptFlash(session)?.values?.[name] ?? null
      },
      async signOutEverywhere() {
        if (user) await endUserSessions(ctx.db, user.id)
        const visitor = await startSession(
          ctx.db,
          { userId: null, ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
          ctx.settings,
          ctx.now(),
        )
        web.replaceSession(visitor)
      },
      async render(options, body, status = 200) {
        const signedIn = ctx.caller.user
        const csrfToken = signedIn && session ? csrfTokenOf(session) : undefined
        // A kept flash shows on this page, then is gone.
        const kept = keptFlash(session)
        if (kept && session) await setFlash(ctx.db, session, null)
        const flash = options.flash ?? kept
        const impersonating = signedIn !== null && session?.impersonator_id != null
        const text = page(
          { ...options, flash, signedInAs: signedIn?.username ?? null, csrfToken, impersonating, adminArea: signedIn?.admin === 1 },
          body,
        )
        return reply
          .code(status)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('content-security-policy', CONTENT_SECURITY_POLICY)
          .send(text)
      },
      redirect(location, status = 302) {
        return reply.code(status).header('location', location).type('text/html; charset=utf-8').send(redirectBody(location))
      },
      async redirectToSignIn() {
        // Only a page the visitor opened is worth coming back to, not an image or a script the browser fetched for one
        // (Devise's storable location: a navigational GET).
        if (method === 'GET' && isNavigation(request)) {
          await setReturnTo(ctx.db, await web.ensureSession(), request.url)
        }
        return web.redirect(SIGN_IN_PATH)
      },
      notFound() {
        // GL ApplicationController#route_not_found and find_routable!: a visitor who has not signed in is sent to
        // sign in, whether the page exists or not, so nothing is revealed either way.
        if (!ctx.caller.user && method === 'GET') return web.redirectToSignIn()
        return web.render({ title: 'Not Found' }, NOT_FOUND, 404)
      },
    }
    return { web, user }
  }
}
