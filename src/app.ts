import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import FindMyWay from 'find-my-way'
import type { Redis } from 'ioredis'
import type { Config } from './config/index.js'
import { RedisAnnouncer, soleProcess, type Announcer } from './core/announcer.js'
import { anonymous, type Caller } from './core/caller.js'
import type { Context } from './core/context.js'
import type { DatabaseHandle } from './db/index.js'
import { buildContext, contextWith, type ContextParts } from './build-context.js'
import { Authenticator } from './http/authenticate.js'
import { AddressRanges, dropUnparsableForwardedFor, trustProxyOption } from './http/client-address.js'
import { CredentialCache } from './http/credential-cache.js'
import { MalformedRequest, MethodNotAllowed, sendError } from './http/errors.js'
import { redactingLoggerOptions } from './http/log-redaction.js'
import {
  MAX_BODY_BYTES,
  MAX_REQUEST_LINE_BYTES,
  answerUnroutedMethod,
  handleClientError,
  hasMalformedQuery,
  isWellFormedPath,
  parseQueryString,
  registerBodyParsers,
  rewriteUrl,
} from './http/request-parsing.js'
import { registerOpenApiRoute, RouteCatalog } from './http/openapi.js'
import { ApiRouter, type PlainRouteDeps } from './http/route.js'
import { enforceProtectedPathThrottle, enforceThrottle, MemoryCounter, RedisCounter, type WindowCounter } from './http/throttle.js'
import { Metrics } from './features/operations/metrics.js'
import { registerOperationsRoutes } from './features/operations/routes.js'
import { SettingsCache } from './features/settings/cache.js'
import { registerSettingsRoutes } from './features/settings/routes.js'
import { registerGroupRoutes } from './features/groups/routes.js'
import { registerMemberRoutes } from './features/members/routes.js'
import { registerNamespaceRoutes } from './features/namespaces/routes.js'
import { registerProjectRoutes } from './features/projects/routes.js'
import { findMovedProjectLocation } from './features/projects/index.js'
import { ACCESS_TOKEN_TABLES, tokenLookups } from './features/tokens/index.js'
import { registerTokenRoutes } from './features/tokens/routes.js'
import { registerResourceTokenRoutes } from './features/resource-tokens/routes.js'
import { registerUserRoutes } from './features/users/routes.js'
import { registerApplicationPages } from './features/applications/pages.js'
import { registerApplicationRoutes } from './features/applications/routes.js'
import { createTokenQueue, OAUTH_TOKEN_TABLES, oauthLookups, revokeAuthorization, revokeOwnToken } from './features/oauth/index.js'
import { registerOpenIdRoutes } from './features/oauth/openid.js'
import { registerAuthorizePages } from './features/oauth/pages/authorize.js'
import { registerOAuthRoutes } from './features/oauth/routes.js'
import { redirectBody, sessionLookups, WebRouter } from './features/sessions/index.js'
import { registerSessionPages } from './features/sessions/routes.js'
import { registerEventRoutes } from './features/events/routes.js'
import { registerGitHttpRoutes } from './features/git-http/routes.js'
import { registerIssueRoutes } from './features/issues/routes.js'
import { registerLabelRoutes } from './features/labels/routes.js'
import { registerMergeRequestRoutes } from './features/merge-requests/routes.js'
import { registerMilestoneRoutes } from './features/milestones/routes.js'
import { registerNoteRoutes } from './features/notes/routes.js'
import { touchIssuable } from './features/issuables/index.js'
import { readIssueNoteCommands } from './features/issues/index.js'
import { readMergeRequestNoteCommands } from './features/merge-requests/index.js'
import { registerNotificationSettingRoutes } from './features/notification-settings/routes.js'
import { registerForkRoutes } from './features/forks/routes.js'
import { registerSnippetRoutes } from './features/snippets/routes.js'
import { registerStorageMoveRoutes } from './features/storage-moves/routes.js'
import { registerEnvironmentRoutes } from './features/environments/routes.js'
import { registerClusterRoutes } from './features/clusters/routes.js'
import { registerAnnotationRoutes } from './features/annotations/routes.js'
import { registerAlertRoutes } from './features/alerts/routes.js'
import { registerAlertIntegrationRoutes } from './features/alerts/integrations/routes.js'
import { registerAlertPages } from './features/alerts/pages.js'
import { registerAlertWebhookRoutes } from './features/alerts/ingest/routes.js'
import { createAlertIntake } from './features/alerts/ingest/index.js'
import { registerErrorTrackingRoutes } from './features/error-tracking/routes.js'
import { registerErrorCollectorRoutes } from './features/error-tracking/ingest/routes.js'
import { createErrorCollector } from './features/error-tracking/ingest/index.js'
import { registerErrorTrackingPages } from './features/error-tracking/pages.js'
import { registerOverviewPages } from './features/overview-pages/index.js'
import { registerRepositoryPages } from './features/repository-pages/index.js'
import { registerMergeRequestPages } from './features/merge-request-pages/index.js'
import { registerIssuablePages } from './features/issuable-pages/index.js'
import { registerAdminPages } from './features/admin-pages/index.js'
import { registerUserSettingsPages } from './features/user-settings-pages/index.js'
import { registerSettingsPages } from './features/settings-pages/index.js'
import { registerBranchRoutes } from './features/branches/routes.js'
import { registerProtectedRefRoutes } from './features/protected-refs/routes.js'
import { registerTagRoutes } from './features/tags/routes.js'
import { registerCommitRoutes } from './features/commits/routes.js'
import { registerCommitActionRoutes } from './features/commit-actions/routes.js'
import { registerRepositoryFileRoutes } from './features/repository-files/routes.js'
import { registerRepositoryBrowseRoutes } from './features/repository-browse/routes.js'
import { registerSentNotificationPages } from './features/sent-notification-pages/index.js'
import { registerWebhookRoutes } from './features/webhooks/routes.js'
import { tellWebhooks } from './features/webhooks/index.js'
import { addTeller } from './features/change-notices/index.js'
import { tellNotifications } from './features/notifications/index.js'
import { InstanceMemo } from './core/instance-memo.js'
import { SVC_VERSION } from './version.js'

// What a change sends to webhooks is recorded with the change (features/change-notices).
addTeller(tellWebhooks)
// What a change mails to the people it concerns is queued with the change too (features/notifications).
addTeller(tellNotifications)

export interface AppDeps {
  config: Config
  database: DatabaseHandle
  redis: Redis | null
  /** Prefix of this deployment's Redis keys. */
  redisNamespace?: string
  /** How this process tells the others of its deployment about changes, when there is no Redis to do it. */
  announcer?: Announcer
  /** Where rate limits are counted when there is no Redis: this process's own memory unless given. */
  counter?: WindowCounter
  /** Injectable for tests that travel in time. */
  clock?: () => Date
  /** Where log lines go instead of standard output (tests read them). */
  logStream?: NodeJS.WritableStream
}

export interface App {
  fastify: FastifyInstance
  settings: SettingsCache
  /** The OpenAPI 3.1 document of every /api/v4 route. */
  openapi(): Record<string, unknown>
  /** What every Context of this instance is built from (`buildContext`): the job worker's, the CLI's and tests' too. */
  parts: ContextParts
  close(): Promise<void>
}

const REQUEST_ID = /^[\w.:-]{1,128}$/
const ROUTES_ENDING_IN_NAMES =
  /\/(?:repository\/files\/:file_path|repository\/branches\/:branch|repository\/tags\/:tag_name|repository\/commits\/:sha|protected_(?:branches|tags)\/:name)$/
// Pages take a file or ref path whole too (GL routes with `constraints: { id: /.+/ }`): `/-/blob/main/x.json` shows x.json.
const PAGES_ENDING_IN_NAMES = /^\/(?!api\/).*?\/-\/(?:tree|blob|raw|blame|commits|find_file|compare|archive)\//

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps
  const clock = deps.clock ?? (() => new Date())
  // Every route's methods, so a known path with an unknown method gets 405 instead of 404. The router answering that
  // is built on the first such request: a second router over every route costs 3 MB that most processes never use.
  const routes: [method: string, url: string][] = []
  const routerOf = (isKept: (url: string) => boolean) => {
    const router = FindMyWay()
    for (const [method, url] of routes) {
      if (!isKept(url)) continue
      try {
        router.on(method as 'GET', url, () => {})
      } catch {
        // the same method and path twice (HEAD beside GET): already known
      }
    }
    return router
  }
  // A path is judged by the routes that are not pages: page routes (`/:namespace/:project`) take any path of their
  // shape, and Rails answers a page's unknown method with 404.
  let methodsByPath: ReturnType<typeof FindMyWay> | null = null
  let methodsByApiPath: ReturnType<typeof FindMyWay> | null = null
  const allowedAt = (path: string): string[] => {
    const router: ReturnType<typeof FindMyWay> = path.startsWith('/api/')
      ? (methodsByApiPath ??= routerOf((url) => url.startsWith('/api/')))
      : (methodsByPath ??= routerOf((url) => !web.serves(url)))
    return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => router.find(m as 'GET', path))
  }
  // `.json` ends a path as Grape's format suffix, except where the path ends with a file path, branch, tag or commit:
  // GitLab takes those whole (their NO_SLASH_URL_PART_REGEX requirement), so `files/x.json` names the file x.json.
  let routesEndingInNames: ReturnType<typeof FindMyWay> | null = null
  const endsInName = (method: string | undefined, path: string) => {
    const router = (routesEndingInNames ??= routerOf((url) => ROUTES_ENDING_IN_NAMES.test(url)))
    return [method ?? 'GET', 'GET'].some((candidate) => router.find(candidate as 'GET', path) !== null)
  }
  const withoutFormatSuffix = (method: string | undefined, url: string) => {
    const path = url.split('?', 1)[0]
    return path.endsWith('.json') && (PAGES_ENDING_IN_NAMES.test(path) || endsInName(method, path)) ? url : rewriteUrl(url)
  }
  const trustedProxies = new AddressRanges(config.trustedProxies)
  const fastify = Fastify({
    logger: config.logLevel === 'silent' ? false : { ...redactingLoggerOptions(config.logLevel), stream: deps.logStream },
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { maxParamLength: MAX_REQUEST_LINE_BYTES, ignoreTrailingSlash: true, querystringParser: parseQueryString },
    // request.ip (rate limits, logs, sessions, Git) and request.protocol believe X-Forwarded-* of trusted proxies only.
    trustProxy: trustProxyOption(trustedProxies),
    rewriteUrl: (request) => {
      // Before routing, so that even the request's first log line has the client's address.
      dropUnparsableForwardedFor(request, trustedProxies)
      return withoutFormatSuffix(request.method, request.url ?? '/')
    },
    clientErrorHandler: (error, socket) => handleClientError(error, socket, allowedAt),
    return503OnClosing: true,
    // Undecodable URLs and similar refusals by the router take GitLab's plain 400 too.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
  })
  registerBodyParsers(fastify)
  // Node hands CONNECT over as a tunnel request and closes the connection unanswered when nobody takes it; the socket
  // is ours then, its errors too (a client gone before the answer).
  fastify.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy())
    answerUnroutedMethod(socket, request.url, allowedAt)
  })

  const announcer = deps.redis ? new RedisAnnouncer(deps.redis, deps.redisNamespace ?? 'svc', fastify.log) : (deps.announcer ?? soleProcess)
  const settings = new SettingsCache(database.db, { clock, announcer })
  await settings.listen()
  const parts: ContextParts = { db: database.db, config, settings, clock, log: fastify.log, memo: new InstanceMemo() }
  const counter: WindowCounter = deps.redis
    ? new RedisCounter(deps.redis, deps.redisNamespace ?? 'svc')
    : (deps.counter ?? new MemoryCounter())
  const credentials = new CredentialCache(new Set([...ACCESS_TOKEN_TABLES, ...OAUTH_TOKEN_TABLES]), announcer, () =>
    database.noticeForeignCommits(),
  )
  database.writes.on((tables, committed, foreign) => credentials.written(tables, committed, foreign))
  await credentials.listen()
  const authenticator = new Authenticator({ ...tokenLookups, ...oauthLookups, ...sessionLookups }, config, credentials)
  const metrics = new Metrics()
  // Webhook alerts, collected errors and OAuth tokens are committed in groups, one queue per instance, drained on close.
  const alertIntake = createAlertIntake(database.db, fastify.log, clock)
  const errorCollector = createErrorCollector(database.db, fastify.log, clock)
  const oauthTokens = createTokenQueue(database.db, fastify.log, clock)
  fastify.addHook('onClose', async () => {
    await Promise.all([alertIntake.queue.drain(), errorCollector.queue.drain(), oauthTokens.drain()])
  })

  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) routes.push([method, route.url])
  })

  const catalog = new RouteCatalog()
  catalog.watch(fastify)

  // Hooks every request pays for take a callback rather than a promise: one microtask less each.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    reply.header('x-frame-options', 'SAMEORIGIN')
    reply.header('x-content-type-options', 'nosniff')
    const url = request.raw.url ?? '/'
    if (url.length > MAX_REQUEST_LINE_BYTES) {
      reply.code(414).type('application/json').send('{"message":"414 Request-URI Too Large"}')
      return
    }
    done(isWellFormedPath(url) && !hasMalformedQuery(request.query) ? undefined : new MalformedRequest())
  })
  // GitLab's API answers `application/json` without a charset parameter; Fastify would add one.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/api/') && reply.getHeader('content-type') === 'application/json; charset=utf-8') {
      reply.header('content-type', 'application/json')
    }
    done(null, payload)
  })
  metrics.register(fastify)

  fastify.setErrorHandler((error, request, reply) => sendError(request, reply, error))
  fastify.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/'
    if ((request.method === 'GET' || request.method === 'HEAD') && !path.startsWith('/api/')) {
      // Moved web URLs are resolved as an anonymous visitor sees them: a private project's old path is not revealed.
      const ctx = await buildContext(parts, anonymous, request.log)
      const location = await findMovedProjectLocation(ctx, request.raw.url ?? request.url)
      if (location) return reply.code(301).header('location', location).type('text/html; charset=utf-8').send(redirectBody(location))
    }
    const allowed = allowedAt(path)
    if (allowed.length > 0) {
      if (request.method === 'OPTIONS')
        return reply
          .code(204)
          .header('allow', ['OPTIONS', ...allowed].join(', '))
          .send()
      return sendError(request, reply, new MethodNotAllowed(['OPTIONS', ...allowed]))
    }
    // A browser gets the 404 page; API clients and tools, GitLab's JSON.
    if (!path.startsWith('/api/') && request.headers.accept?.includes('text/html')) return web.notFoundPage(request, reply)
    return reply.code(404).type('application/json').send('{"error":"404 Not Found"}')
  })

  // GL lib/api/api.rb: every path of the retired v3 API.
  fastify.all('/api/v3/*', async (_request, reply) =>
    reply.code(410).type('application/json').send('{"error":"API V3 is no longer supported. Use API V4 instead."}'),
  )

  const api = new ApiRouter(fastify, async (request, params, scopes): Promise<Context> => {
    const settings = parts.settings.kept() ?? (await parts.settings.current())
    const now = parts.clock()
    let caller: Caller
    try {
      caller = await authenticator.authenticate(parts.db, request, params, settings, scopes, now)
    } catch (error) {
      // A request whose credentials fail still counts, by IP, as Rack::Attack sees it unauthenticated.
      await enforceThrottle(counter, anonymous, request.ip, settings, now, request.log)
      throw error
    }
    await enforceThrottle(counter, caller, request.ip, settings, now, request.log)
    return contextWith(parts, caller, settings, request.log)
  })

  const plain: PlainRouteDeps = {
    context: (request) => buildContext(parts, anonymous, request.log),
    async throttleProtectedPath(request, ctx) {
      await enforceProtectedPathThrottle(counter, ctx.caller, request.ip, ctx.settings, ctx.now(), request.log)
    },
  }
  const web = new WebRouter(fastify, plain)

  registerOperationsRoutes(fastify, api, {
    database,
    redis: deps.redis,
    metrics,
    monitoringClients: new AddressRanges(config.monitoringIpWhitelist),
  })
  registerUserRoutes(api)
  registerTokenRoutes(api)
  registerResourceTokenRoutes(api)
  registerSettingsRoutes(api, settings)
  registerNamespaceRoutes(api)
  registerGroupRoutes(api)
  registerProjectRoutes(api)
  registerMemberRoutes(api)
  registerIssueRoutes(api)
  registerMergeRequestRoutes(api)
  registerNoteRoutes(api, touchIssuable, { Issue: readIssueNoteCommands, MergeRequest: readMergeRequestNoteCommands })
  registerMilestoneRoutes(api)
  registerLabelRoutes(api)
  registerEventRoutes(api)
  registerNotificationSettingRoutes(api)
  registerForkRoutes(api)
  registerSnippetRoutes(api)
  registerStorageMoveRoutes(api)
  registerEnvironmentRoutes(api)
  registerClusterRoutes(api)
  registerAnnotationRoutes(api)
  registerAlertRoutes(api)
  registerAlertIntegrationRoutes(api)
  registerAlertPages(web, alertIntake)
  registerAlertWebhookRoutes(fastify, plain, alertIntake)
  registerErrorTrackingRoutes(api)
  registerBranchRoutes(api)
  registerProtectedRefRoutes(api)
  registerTagRoutes(api)
  registerCommitRoutes(api)
  registerCommitActionRoutes(api)
  registerRepositoryFileRoutes(api)
  registerRepositoryBrowseRoutes(api)
  registerWebhookRoutes(api)
  registerErrorCollectorRoutes(fastify, plain, errorCollector)
  registerErrorTrackingPages(web)
  registerOverviewPages(web)
  registerRepositoryPages(web)
  registerMergeRequestPages(web)
  registerIssuablePages(web)
  registerAdminPages(web, { settings })
  registerSettingsPages(web)
  registerSessionPages(web)
  registerApplicationRoutes(api)
  registerApplicationPages(web, { revokeAuthorization, revokeOwnToken })
  registerUserSettingsPages(web)
  registerOAuthRoutes(fastify, plain, oauthTokens)
  registerAuthorizePages(web)
  registerSentNotificationPages(web, fastify, plain)
  registerOpenIdRoutes(fastify, plain)
  registerGitHttpRoutes(fastify, plain)
  registerOpenApiRoute(api, catalog, SVC_VERSION)

  await fastify.ready()
  return {
    fastify,
    settings,
    parts,
    openapi: () => catalog.document(SVC_VERSION),
    async close() {
      await fastify.close()
      await counter.close()
      await announcer.close()
    },
  }
}
