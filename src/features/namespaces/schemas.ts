import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

// Request params (GL lib/api/namespaces.rb).

export const ListNamespacesParams = Type.Object({
  search: Type.Optional(Type.String()),
  owned_only: Type.Optional(Type.Boolean()),
  top_level_only: Type.Boolean({ default: false }),
  full_path_search: Type.Boolean({ default: false }),
  ...paginationParams,
})
export type ListNamespacesParams = Static<typeof ListNamespacesParams>

export const NamespaceIdParams = Type.Object({ id: Type.String() })

export const NamespaceExistsParams = Type.Object({
  id: Type.String(),
  parent_id: Type.Optional(Type.Integer()),
})

// Response entities (GL lib/api/entities/namespace_basic.rb, namespace.rb), fields in GitLab's order.

export const NamespaceJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  kind: Type.String(),
  full_path: Type.String(),
  parent_id: Nullable(Type.Integer()),
  avatar_url: Nullable(Type.String()),
  web_url: Type.String(),
  members_count_with_descendants: Type.Optional(Type.Integer()),
  root_repository_size: Type.Optional(Nullable(Type.Integer())),
  projects_count: Type.Optional(Type.Integer()),
})
export type NamespaceJson = Static<typeof NamespaceJson>

export const NamespaceListResponse = Type.Array(NamespaceJson)

export const NamespaceExistenceJson = Type.Object({
  exists: Type.Boolean(),
  suggests: Type.Array(Type.String()),
})
export type NamespaceExistenceJson = Static<typeof NamespaceExistenceJson>
