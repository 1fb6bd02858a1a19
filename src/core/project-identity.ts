import type { ProjectRow } from '../db/schema.js'

/** GL Entities::ProjectIdentity: how a project is named wherever another resource embeds it (storage moves, BasicProjectDetails). */
export function presentProjectIdentity(project: ProjectRow) {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: project.full_name,
    path: project.path,
    path_with_namespace: project.full_path,
    created_at: project.created_at,
  }
}
