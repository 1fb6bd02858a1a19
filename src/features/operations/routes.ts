import { Type } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { pingDatabase, type DatabaseHandle } from '../../db/index.js'
import type { AddressRanges } from '../../http/client-address.js'
import type { ApiRouter } from '../../http/route.js'
import { countJobsByKindAndState } from '../../jobs/index.js'
import { SVC_REVISION, SVC_VERSION } from '../../version.js'
import { CONTENT_SECURITY_POLICY, html, page } from '../../web/html.js'
import type { Metrics } from './metrics.js'

const VersionJson = Type.Object({
  version: Type.String(),
  revision: Type.String(),
  kas: Type.Object({
    enabled: Type.Boolean(),
    externalUrl: Nullable(Type.String()),
    externalK8sProxyUrl: Nullable(Type.String()),
    version: Nullable(Type.String()),
  }),
  enterprise: Type.Boolean(),
})

const versionBody = {
  version: SVC_VERSION,
  revision: SVC_REVISION,
  kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
  enterprise: false,
}

async function checkRedis(redis: Redis | null): Promise<boolean> {
  if (!redis) return true
  try {
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  }
}

// GL errors/not_found in the errors layout: what a client outside monitoring.ip_whitelist gets.
const NOT_WHITELISTED = page(
  { title: 'Not Found' },
  html`<div class="empty-state">
    <h1>404</h1>
    <hr />
    <h2>Resource you were looking for doesn't exist.</h2>
    <p>You may have mistyped the address or the page may have moved.</p>
  </div>`,
)

/** Health, readiness, liveness, metrics and the version endpoints (GL health_controller.rb, metadata.rb). */
export function registerOperationsRoutes(
  app: FastifyInstance,
  api: ApiRouter,
  deps: { database: DatabaseHandle; redis: Redis | null; metrics: Metrics; monitoringClients: AddressRanges },
) {
  // GL RequiresAllowlistedMonitoringClient: the client address (through trusted proxies) must be whitelisted.
  const onlyMonitoringClients = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (deps.monitoringClients.includes(request.ip)) return done()
    reply.code(404).type('text/html; charset=utf-8').header('content-security-policy', CONTENT_SECURITY_POLICY).send(NOT_WHITELISTED)
  }

  // GL Gitlab::Middleware::BasicHealthCheck: an empty 404 outside the whitelist, rather than the error page.
  app.get('/-/health', async (request, reply) =>
    deps.monitoringClients.includes(request.ip)
      ? reply.type('text/plain; charset=utf-8').send('Svc OK')
      : reply.code(404).type('text/plain; charset=utf-8').send(''),
  )

  app.get('/-/liveness', { onRequest: onlyMonitoringClients }, async (_request, reply) =>
    reply.type('application/json').send('{"status":"ok"}'),
  )

  app.get<{ Querystring: { all?: string } }>('/-/readiness', { onRequest: onlyMonitoringClients }, async (request, reply) => {
    const [databaseUp, redisUp] = await Promise.all([pingDatabase(deps.database.db), checkRedis(deps.redis)])
    const status = (up: boolean) => (up ? { status: 'ok' } : { status: 'failed', message: 'unexpected response' })
    const ready = databaseUp && redisUp
    const body: Record<string, unknown> = { status: ready ? 'ok' : 'failed', master_check: [status(ready)] }
    if (request.query.all === '1') {
      body.db_check = [status(databaseUp)]
      if (deps.redis) body.redis_check = [status(redisUp)]
    }
    return reply
      .code(ready ? 200 : 503)
      .type('application/json')
      .send(JSON.stringify(body))
  })

  deps.metrics.trackJobs(() => countJobsByKindAndState(deps.database.db))
  app.get('/-/metrics', { onRequest: onlyMonitoringClients }, async (_request, reply) =>
    reply.type(deps.metrics.contentType).send(await deps.metrics.text()),
  )

  for (const path of ['/version', '/metadata']) {
    api.get(path, { scopes: ['read_user'], response: { 200: VersionJson } }, async () => versionBody)
  }
}
