import { offsetWindow, setOffsetHeaders } from '../../http/pagination.js'
import type { ApiRouter } from '../../http/route.js'
import { cgiUnescape } from './dashboards.js'
import { presentAnnotation } from './present.js'
import {
  AnnotationErrorJson,
  AnnotationJson,
  AnnotationListResponse,
  AnnotationParams,
  CreateAnnotationParams,
  ListAnnotationsParams,
} from './schemas.js'
import { createAnnotation, deleteAnnotation, findAnnotationSource, listAnnotations, type AnnotationSourceKind } from './service.js'

const SOURCES: { kind: AnnotationSourceKind; resource: string }[] = [
  { kind: 'environment', resource: 'environments' },
  { kind: 'cluster', resource: 'clusters' },
]

/** Metrics dashboard annotations under environments and clusters (GL API::Metrics::Dashboard::Annotations). */
export function registerAnnotationRoutes(api: ApiRouter) {
  for (const { kind, resource } of SOURCES) {
    const base = `/${resource}/:id/metrics_dashboard/annotations`

    api.post(
      base,
      { params: CreateAnnotationParams, response: { 201: AnnotationJson, 400: AnnotationErrorJson } },
      async (request, reply) => {
        const { ctx, input } = request
        const source = await findAnnotationSource(ctx, kind, input.id)
        const result = await createAnnotation(ctx, source, {
          // GL `coerce_with: CGI.unescape` (spec: Metrics dashboard annotations).
          dashboardPath: cgiUnescape(input.dashboard_path),
          startingAt: input.starting_at,
          endingAt: input.ending_at ?? null,
          description: input.description,
        })
        if (!result.ok) return reply.code(400).send({ status: 'error', message: result.message })
        return reply.code(201).send(presentAnnotation(result.annotation))
      },
    )

    api.get(base, { params: ListAnnotationsParams, response: { 200: AnnotationListResponse } }, async (request, reply) => {
      const { ctx, input } = request
      const { page, perPage } = offsetWindow(input, ctx.settings)
      const source = await findAnnotationSource(ctx, kind, input.id)
      const list = await listAnnotations(ctx, source, {
        dashboardPath: input.dashboard_path === undefined ? undefined : cgiUnescape(input.dashboard_path),
        from: input.from,
        to: input.to,
        page,
        perPage,
      })
      setOffsetHeaders(request, reply, ctx.config.externalUrl, list)
      return list.rows.map(presentAnnotation)
    })

    api.delete(`${base}/:annotation_id`, { params: AnnotationParams }, async (request, reply) => {
      const { ctx, input } = request
      await deleteAnnotation(ctx, await findAnnotationSource(ctx, kind, input.id), input.annotation_id)
      return reply.code(204).send()
    })
  }
}
