import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PlainRouteDeps } from '../../../http/route.js'
import { MAX_RECEIVED_BYTES } from './parse.js'
import { collectEvents, type CollectorOutcome, type ErrorCollector } from './service.js'

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

/** GitLab's status and body for each outcome (GL API::ErrorTracking::Collector); null is an empty body. */
function answerOf(result: CollectorOutcome): { status: number; body: { message: string } | null } {
  switch (result.outcome) {
    // GitLab answers 200 with nothing of use in the body ("Collector should never return any information back"; some
    // SDKs need 200, not 204). The tracker itself answers `{"id":...}`, which no SDK reads.
    case 'stored':
      return { status: 200, body: null }
    case 'project-not-found':
      return { status: 404, body: { message: '404 Project Not Found' } }
    case 'not-found':
      return { status: 404, body: { message: '404 Not Found' } }
    case 'unparsable':
      return { status: 400, body: { message: '400 Bad request - Failed to parse sentry request' } }
    case 'unsupported':
      return { status: 400, body: { message: '400 Bad request - Unsupported sentry payload' } }
    case 'invalid':
      return { status: 400, body: { message: result.message } }
    case 'too-large':
      return { status: 413, body: { message: '413 Request Entity Too Large' } }
    case 'not-stored':
      return { status: 500, body: { message: '500 Internal Server Error' } }
  }
}

/** The collector SDKs report to: `/api/v4/error_tracking/collector/api/:id/store` and `…/envelope` (GL API::ErrorTracking::Collector). */
export function registerErrorCollectorRoutes(app: FastifyInstance, deps: PlainRouteDeps, collector: ErrorCollector) {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    // Every type is read as bytes here, then refused by the handler unless accepted: a missing type must be read too.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_RECEIVED_BYTES }, (_request, body, done) => done(null, body))

    async function collect(request: FastifyRequest, reply: FastifyReply, route: 'store' | 'envelope') {
      if (!acceptedType(request.headers['content-type']))
        return reply.code(415).send({ error: 'The provided content-type is not supported.' })
      const ctx = await deps.context(request)
      const query = request.query as Record<string, unknown>
      const result = await collectEvents(ctx, collector, {
        route,
        id: (request.params as { id: string }).id,
        queryKey: query.sentry_key,
        authHeader: request.headers['x-sentry-auth'],
        contentEncoding: request.headers['content-encoding'],
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      })
      const answer = answerOf(result)
      if (answer.body === null) return reply.code(answer.status).send()
      return reply.code(answer.status).send(answer.body)
    }

    // SDKs append a slash (`…/store/`); the router takes both spellings.
    const options = { bodyLimit: MAX_RECEIVED_BYTES }
    scope.post('/api/v4/error_tracking/collector/api/:id/store', options, (request, reply) => collect(request, reply, 'store'))
    scope.post('/api/v4/error_tracking/collector/api/:id/envelope', options, (request, reply) => collect(request, reply, 'envelope'))
  })
}
