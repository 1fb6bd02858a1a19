import type { NamespaceRow, ProjectRow, RepositoryStorageMoveRow } from '../../db/schema.js'
import { presentProjectIdentity } from '../../core/project-identity.js'
import type { BasicSnippetJson } from '../snippets/index.js'
import type { GroupMoveJson, ProjectMoveJson, SnippetMoveJson } from './schemas.js'
import { stateName } from './service.js'

function presentMoveFields(move: RepositoryStorageMoveRow) {
  return {
    id: move.id,
    created_at: move.created_at,
    state: stateName(move.state),
    source_storage_name: move.source_storage_name,
    destination_storage_name: move.destination_storage_name,
    error_message: move.error_message,
  }
}

/** GL Entities::Projects::RepositoryStorageMove: the move with its project's identity. */
export function presentProjectMove(move: RepositoryStorageMoveRow, project: ProjectRow): ProjectMoveJson {
  return {
    ...presentMoveFields(move),
    project: presentProjectIdentity(project),
  }
}

/** GL Entities::Groups::RepositoryStorageMove: the move with its group's BasicGroupDetails. */
export function presentGroupMove(move: RepositoryStorageMoveRow, group: NamespaceRow, externalUrl: string): GroupMoveJson {
  return {
    ...presentMoveFields(move),
    group: { id: group.id, web_url: `${externalUrl}/groups/${group.full_path}`, name: group.name },
  }
}

/** GL Entities::Snippets::RepositoryStorageMove: the move with its snippet as BasicSnippet (presented by the snippets feature). */
export function presentSnippetMove(move: RepositoryStorageMoveRow, snippet: BasicSnippetJson): SnippetMoveJson {
  return { ...presentMoveFields(move), snippet }
}
