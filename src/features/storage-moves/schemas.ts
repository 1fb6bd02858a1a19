import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { BasicSnippetJson } from '../snippets/index.js'

// Request params (GL lib/api/project_repository_storage_moves.rb, snippet_…, ee group_…).

export const ListMovesParams = Type.Object({ ...paginationParams })

export const ShowMoveParams = Type.Object({ repository_storage_move_id: Type.Integer() })

export const BulkScheduleParams = Type.Object({
  source_storage_name: Type.String(),
  destination_storage_name: Type.Optional(Type.String()),
})

export const ListContainerMovesParams = Type.Object({ id: Type.String(), ...paginationParams })

export const ShowContainerMoveParams = Type.Object({ id: Type.String(), repository_storage_move_id: Type.Integer() })

export const ScheduleContainerMoveParams = Type.Object({
  id: Type.String(),
  destination_storage_name: Type.Optional(Type.String()),
})

// Entities (GL Entities::BasicRepositoryStorageMove and its Projects::, Snippets::, Groups:: subclasses).

const moveFields = {
  id: Type.Integer(),
  created_at: Type.String(),
  state: Type.String(),
  source_storage_name: Type.String(),
  destination_storage_name: Type.String(),
  error_message: Nullable(Type.String()),
}

/** GL Entities::ProjectIdentity. */
export const ProjectIdentityJson = Type.Object({
  id: Type.Integer(),
  description: Nullable(Type.String()),
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  created_at: Type.String(),
})

/** GL Entities::BasicGroupDetails. */
export const GroupBasicDetailsJson = Type.Object({
  id: Type.Integer(),
  web_url: Type.String(),
  name: Type.String(),
})

export const ProjectMoveJson = Type.Object({ ...moveFields, project: ProjectIdentityJson })
export type ProjectMoveJson = Static<typeof ProjectMoveJson>

export const GroupMoveJson = Type.Object({ ...moveFields, group: GroupBasicDetailsJson })
export type GroupMoveJson = Static<typeof GroupMoveJson>

export const SnippetMoveJson = Type.Object({ ...moveFields, snippet: BasicSnippetJson })
export type SnippetMoveJson = Static<typeof SnippetMoveJson>

export const ProjectMoveListJson = Type.Array(ProjectMoveJson)
export const GroupMoveListJson = Type.Array(GroupMoveJson)
export const SnippetMoveListJson = Type.Array(SnippetMoveJson)

/** GL `accepted!`. */
export const AcceptedJson = Type.Object({ message: Type.String() })
