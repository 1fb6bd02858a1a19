import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../../../db/index.js'
import { GroupCommitQueue } from '../../../db/group-commit.js'
import type { PlainRouteDeps } from '../../../http/route.js'
import { applyEventSubmissions, type EventOutcome, type EventSubmission } from './batch.js'
import { MAX_RECEIVED_BYTES } from './parse.js'
import { collectEvents, type CollectorQueue } from './service.js'

/**
 * What SDKs send (GL API::ErrorTracking::Collector: envelope, json, txt), read as bytes; no type at all is the default
 * format, envelope (@sentry/node sends none); form-encoded too, which is what `curl --data` sends. Any other type is
 * Grape's 415.
 */
const CONTENT_TYPES = new Set(['application/x-sentry-envelope', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'])

function acceptedType(header: string | undefined): boolean {
  if (header === undefined) return true
  const type = header.split(';')[0].trim().toLowerCase()
  return type === '' || CONTENT_TYPES.has(type)
}

/** The collector SDKs report to: `/api/v4/error_tracking/collector/api/:id/store` and `…/envelope` (GL API::ErrorTracking::Collector). */
export function registerErrorCollectorRoutes(app: FastifyInstance, deps: PlainRouteDeps) {
  const queues = new Map<Db, CollectorQueue>()

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    // Every type is read as bytes here, then refused by the handler unless accepted: a missing type must be read too.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_RECEIVED_BYTES }, (_request, body, done) => done(null, body))
    scope.addHook('onClose', async () => {
      await Promise.all([...queues.values()].map((queue) => queue.drain()))
    })

    async function collect(request: FastifyRequest, reply: FastifyReply, route: 'store' | 'envelope') {
      if (!acceptedType(request.headers['content-type']))
        return reply.code(415).send({ error: 'The provided content-type is not supported.' })
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
