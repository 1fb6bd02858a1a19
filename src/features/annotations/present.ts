import type { AnnotationRow } from '../../db/schema.js'
import type { AnnotationJson } from './schemas.js'

/** Entities::Metrics::Dashboard::Annotation. */
export function presentAnnotation(annotation: AnnotationRow): AnnotationJson {
  return {
    id: annotation.id,
    starting_at: annotation.starting_at,
    ending_at: annotation.ending_at,
    dashboard_path: annotation.dashboard_path,
    description: annotation.description,
    environment_id: annotation.environment_id,
    cluster_id: annotation.cluster_id,
  }
}
