import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../../../db/index.js'
import { GroupCommitQueue } from '../../../db/group-commit.js'
import type { PlainRouteDeps } from '../../../http/route.js'
import { applyEventSubmissions, type EventOutcome, type EventSubmission } from './batch.js'
import { MAX_RECEIVED_BYTES } from './parse.js'
import { collectEvents, type CollectorQueue } from './service.js'

/**
 * What SDKs send (GL API::ErrorTracking::Collector: envelope, json, txt), read as bytes; form-encoded too, which is
 * what Rails reads a body without its own type as (`curl --data`). Any other type is Grape's 415.
 */
const CONTENT_TYPES = ['application/x-sentry-envelope', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']

/** The collector SDKs report to: `/api/v4/error_tracking/collector/api/:id/store` and `…/envelope` (GL API::ErrorTracking::Collector). */
export function registerErrorCollectorRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  const queues = new Map<Db, CollectorQueue>()

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser(CONTENT_TYPES, { parseAs: 'buffer', bodyLimit: MAX_RECEIVED_BYTES }, (_request, body, done) =>
      done(null, body),
    )
    scope.addHook('onClose', async () => {
      await Promise.all([...queues.values()].map((queue) => queue.drain()))
    })

    async function collect(request: FastifyRequest, reply: FastifyReply, route: 'store' | 'envelope') {
      const ctx = await deps.context(request)
      let queue = queues.get(ctx.db)
      if (!queue) {
        queue = new GroupCommitQueue<EventSubmission, EventOutcome>(ctx.db, ctx.log, ctx.now, {
          apply: applyEventSubmissions,
          failed: { ok: false },
          what: 'error events',
        })
        queues.set(ctx.db, queue)
      }
      const query = request.query as Record<string, unknown>
      const answer = await collectEvents(ctx, queue, {
        route,
        id: (request.params as { id: string }).id,
        queryKey: query.sentry_key,
        authHeader: request.headers['x-sentry-auth'],
        contentEncoding: request.headers['content-encoding'],
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      })
      if (answer.body === null) return reply.code(answer.status).send()
      return reply.code(answer.status).send(answer.body)
    }

    // SDKs append a slash (`…/store/`); the router takes both spellings.
    const options = { bodyLimit: MAX_RECEIVED_BYTES }
    scope.post('/api/v4/error_tracking/collector/api/:id/store', options, (request, reply) => collect(request, reply, 'store'))
    scope.post('/api/v4/error_tracking/collector/api/:id/envelope', options, (request, reply) => collect(request, reply, 'envelope'))
  })
}
