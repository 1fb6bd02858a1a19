import { Type } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { pingDatabase, type DatabaseHandle } from '../../db/index.js'
import type { ApiRouter } from '../../http/route.js'
import { countJobsByKindAndState } from '../../jobs/index.js'
import { SVC_REVISION, SVC_VERSION } from '../../version.js'
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

/** Health, readiness, liveness, metrics and the version endpoints (GL health_controller.rb, metadata.rb). */
export function registerOperationsRoutes(
  app: FastifyInstance,
  api: ApiRouter,
  deps: { database: DatabaseHandle; redis: Redis | null; metrics: Metrics },
) {
  app.get('/-/health', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('Svc OK'))

  app.get('/-/liveness', async (_request, reply) => reply.type('application/json').send('{"status":"ok"}'))

  app.get<{ Querystring: { all?: string } }>('/-/readiness', async (request, reply) => {
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
  app.get('/-/metrics', async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.text()))

  for (const path of ['/version', '/metadata']) {
    api.get(path, { scopes: ['read_user'], response: { 200: VersionJson } }, async () => versionBody)
  }
}
