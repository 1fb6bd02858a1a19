import type { Context } from '../../core/context.js'
import { Forbidden, NotFound, RecordNotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { AnnotationRow } from '../../db/schema.js'
import { canReadClusters, findClusterById } from '../clusters/index.js'
import { canReadEnvironments, findEnvironmentById } from '../environments/index.js'
import { dashboardExists } from './dashboards.js'
import { canAdminAnnotations, canReadAnnotations } from './policy.js'
import { deleteAnnotationRow, findOwnedAnnotation, insertAnnotation, selectAnnotations, type AnnotationOwner } from './store.js'
import { findProject, type LoadedProject } from '../access/index.js'

const MAX_LENGTH = 255

export type AnnotationSourceKind = 'environment' | 'cluster'

/** The environment or cluster annotations hang under, with its project as the caller sees it. */
export interface AnnotationSource {
  owner: AnnotationOwner
  loaded: LoadedProject
}

/**
 * The environment or cluster by its global id. One that does not exist, or that the caller may not see
 * (`read_environment`, `read_cluster`), is "Not found" (spec: Metrics dashboard annotations).
 */
export async function findAnnotationSource(ctx: Context, kind: AnnotationSourceKind, id: number): Promise<AnnotationSource> {
  const row = kind === 'environment' ? await findEnvironmentById(ctx.db, id) : await findClusterById(ctx.db, id)
  if (!row) throw new RecordNotFound()
  let loaded: LoadedProject
  try {
    loaded = await findProject(ctx, row.project_id)
  } catch (error) {
    if (error instanceof NotFound) throw new RecordNotFound()
    throw error
  }
  const visible =
    kind === 'environment' ? canReadEnvironments(loaded.access, loaded.project) : canReadClusters(loaded.access, loaded.project)
  if (!visible) throw new RecordNotFound()
  return { owner: kind === 'environment' ? { environmentId: row.id } : { clusterId: row.id }, loaded }
}

export interface CreateAnnotationInput {
  dashboardPath: string
  startingAt: string
  endingAt: string | null
  description: string
}

/** A refusal GitLab sends as `{"status":"error","message":…}` (GL Metrics::Dashboard::Annotations::CreateService). */
export type AnnotationRefusal = string | Record<string, string[]>

export type CreateAnnotationResult = { ok: true; annotation: AnnotationRow } | { ok: false; message: AnnotationRefusal }

function addError(errors: Record<string, string[]>, attribute: string, message: string) {
  ;(errors[attribute] ??= []).push(message)
}

/** GL Metrics::Dashboard::Annotation validations, in the model's order. */
function annotationErrors(input: CreateAnnotationInput): Record<string, string[]> {
  const errors: Record<string, string[]> = {}
  const tooLong = `is too long (maximum is ${MAX_LENGTH} characters)`
  if (input.description.trim() === '') addError(errors, 'description', "can't be blank")
  if (input.description.length > MAX_LENGTH) addError(errors, 'description', tooLong)
  if (input.dashboardPath.trim() === '') addError(errors, 'dashboard_path', "can't be blank")
  if (input.dashboardPath.length > MAX_LENGTH) addError(errors, 'dashboard_path', tooLong)
  // Equal times are allowed: the annotation then marks one moment.
  if (input.endingAt !== null && Date.parse(input.endingAt) < Date.parse(input.startingAt)) {
    addError(errors, 'ending_at', "can't be before starting_at time")
  }
  return errors
}

/** GL Metrics::Dashboard::Annotations::CreateService: Developer and up, a dashboard that exists, a valid annotation. */
export async function createAnnotation(
  ctx: Context,
  source: AnnotationSource,
  input: CreateAnnotationInput,
): Promise<CreateAnnotationResult> {
  if (!canAdminAnnotations(source.loaded.access)) throw new Forbidden()
  if (!(await dashboardExists(ctx.config, source.loaded.project, input.dashboardPath))) {
    return { ok: false, message: 'Dashboard with requested path can not be found' }
  }
  const errors = annotationErrors(input)
  if (Object.keys(errors).length > 0) return { ok: false, message: errors }
  const at = ctx.now().toISOString()
  const annotation = await insertAnnotation(ctx.db, {
    environment_id: 'environmentId' in source.owner ? source.owner.environmentId : null,
    cluster_id: 'clusterId' in source.owner ? source.owner.clusterId : null,
    dashboard_path: input.dashboardPath,
    description: input.description,
    starting_at: input.startingAt,
    ending_at: input.endingAt,
    created_at: at,
    updated_at: at,
  })
  return { ok: true, annotation }
}

export interface ListAnnotationsInput {
  dashboardPath?: string
  from?: string
  to?: string
  page: number
  perPage: number
}

/**
 * GL Metrics::Dashboards::AnnotationsFinder: of one dashboard, starting from `from`, up to `to` (ignored when it
 * is before `from`); latest start first.
 */
export async function listAnnotations(
  ctx: Context,
  source: AnnotationSource,
  input: ListAnnotationsInput,
): Promise<OffsetPage<AnnotationRow>> {
  if (!canReadAnnotations(source.loaded.access)) throw new Forbidden()
  const to = input.to !== undefined && (input.from === undefined || Date.parse(input.to) >= Date.parse(input.from)) ? input.to : undefined
  const query = selectAnnotations(ctx.db, source.owner, { dashboardPath: input.dashboardPath, from: input.from, to })
  return fetchOffsetPage(ctx.db, query, input.page, input.perPage)
}

/** GL Metrics::Dashboard::Annotations::DeleteService: Developer and up. */
export async function deleteAnnotation(ctx: Context, source: AnnotationSource, annotationId: number) {
  if (!canAdminAnnotations(source.loaded.access)) throw new Forbidden()
  const annotation = await findOwnedAnnotation(ctx.db, source.owner, annotationId)
  if (!annotation) throw new RecordNotFound()
  await deleteAnnotationRow(ctx.db, annotation.id)
}
