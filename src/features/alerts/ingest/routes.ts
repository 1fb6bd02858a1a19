import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PlainRouteDeps } from '../../../http/route.js'
import { LEGACY_IDENTIFIER, PROMETHEUS_IDENTIFIER } from '../integrations/index.js'
import { webhookStatusOf } from './answers.js'
import { keyOf, readWebhookBody, receiveAlerts, type AlertIntake } from './service.js'

/** GitLab's deepest group nesting (GL Namespace::NUMBER_OF_ANCESTORS_ALLOWED). */
const MAX_NAMESPACE_DEPTH = 20
/** Bodies up to this size are read and answered 400 when over the payload limit; larger ones get 413. */
const BODY_LIMIT = 16 * 1024 * 1024
/** GL routes: `endpoint_identifier` constraint. */
const IDENTIFIER = /^[A-Za-z0-9]+$/

type Segments = Record<string, string>

function fullPathOf(params: Segments): string {
  const segments: string[] = []
  for (let n = 1; params[`s${n}`] !== undefined; n++) segments.push(params[`s${n}`])
  return [...segments, params.project].join('/')
}

/** Rails' answer to a JSON body it cannot parse (ActionDispatch ParseError, rendered by PublicExceptions as JSON). */
const UNPARSABLE = { status: 400, error: 'Bad Request' }

/** The alert webhooks at GitLab's URLs: `…/alerts/notify(.json)`, `…/alerts/notify/:name/:endpoint_identifier(.json)`, `…/prometheus/alerts/notify(.json)`. */
export function registerAlertWebhookRoutes(app: FastifyInstance, deps: PlainRouteDeps, intake: AlertIntake) {
  void app.register(async (scope) => {
    // The body is read as bytes whatever its type: the size limit and the JSON errors are the webhook's own.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body))

    async function notify(request: FastifyRequest, reply: FastifyReply, identifier: string) {
      const body = readWebhookBody(Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0))
      if (!body) return reply.code(400).send(UNPARSABLE)
      const ctx = await deps.context(request)
      const result = await receiveAlerts(ctx, intake, {
        ...body,
        fullPath: fullPathOf(request.params as Segments),
        endpointIdentifier: identifier,
        key: keyOf(request.headers.authorization),
      })
      if (result.outcome === 'accepted') return reply.code(200).send(result.alerts)
      return reply.code(webhookStatusOf(result)).send()
    }

    const options = { bodyLimit: BODY_LIMIT }
    for (let depth = 1; depth <= MAX_NAMESPACE_DEPTH; depth++) {
      const prefix = Array.from({ length: depth }, (_, n) => `/:s${n + 1}`).join('') + '/:project'
      scope.post(`${prefix}/alerts/notify`, options, async (request, reply) => notify(request, reply, LEGACY_IDENTIFIER))
      scope.post(`${prefix}/alerts/notify/:name/:endpoint_identifier`, options, async (request, reply) => {
        const { endpoint_identifier: identifier } = request.params as Segments
        if (!IDENTIFIER.test(identifier)) return reply.code(404).send()
        return notify(request, reply, identifier)
      })
      scope.post(`${prefix}/prometheus/alerts/notify`, options, async (request, reply) => notify(request, reply, PROMETHEUS_IDENTIFIER))
    }
  })
}
