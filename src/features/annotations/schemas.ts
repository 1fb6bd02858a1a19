import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

// Request params (GL lib/api/metrics/dashboard/annotations.rb; spec: Metrics dashboard annotations). `:id` is the
// global id of the environment or cluster.

const RecordId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })
const DateTime = Type.String({ format: 'date-time' })

export const CreateAnnotationParams = Type.Object({
  id: RecordId,
  starting_at: DateTime,
  ending_at: Type.Optional(Nullable(DateTime)),
  dashboard_path: Type.String(),
  description: Type.String(),
})
export type CreateAnnotationParams = Static<typeof CreateAnnotationParams>

export const ListAnnotationsParams = Type.Object({
  id: RecordId,
  dashboard_path: Type.Optional(Type.String()),
  from: Type.Optional(DateTime),
  to: Type.Optional(DateTime),
  ...paginationParams,
})
export type ListAnnotationsParams = Static<typeof ListAnnotationsParams>

export const AnnotationParams = Type.Object({
  id: RecordId,
  annotation_id: RecordId,
})

// Response entity (GL lib/api/entities/metrics/dashboard/annotation.rb; spec: Metrics dashboard annotation).

export const AnnotationJson = Type.Object({
  id: Type.Integer(),
  starting_at: Type.String(),
  ending_at: Nullable(Type.String()),
  dashboard_path: Type.String(),
  description: Type.String(),
  environment_id: Nullable(Type.Integer()),
  cluster_id: Nullable(Type.Integer()),
})
export type AnnotationJson = Static<typeof AnnotationJson>
export const AnnotationListResponse = Type.Array(AnnotationJson)

/** The body of a refused annotation (GL `error!(result, 400)` of the create service's result). */
export const AnnotationErrorJson = Type.Object({
  status: Type.Literal('error'),
  message: Type.Union([Type.String(), Type.Record(Type.String(), Type.Array(Type.String()))]),
})
export type AnnotationErrorJson = Static<typeof AnnotationErrorJson>
