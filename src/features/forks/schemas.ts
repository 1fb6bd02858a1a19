import { Type, type Static } from '@sinclair/typebox'
import { ListProjectsParams, VISIBILITIES } from '../projects/index.js'

// Request params (GL lib/api/projects.rb: POST :id/fork, GET :id/forks, POST :id/fork/:forked_from_id, DELETE :id/fork).

export const ForkProjectParams = Type.Object({
  id: Type.String(),
  /** Deprecated: a namespace id or full path. */
  namespace: Type.Optional(Type.String()),
  namespace_id: Type.Optional(Type.Integer()),
  namespace_path: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(Type.Union(VISIBILITIES.map((v) => Type.Literal(v)))),
  mr_default_target_self: Type.Optional(Type.Boolean()),
  /** One branch name: the fork gets only that branch (GL ForkService#branch). */
  branches: Type.Optional(Type.String()),
})
export type ForkProjectParams = Static<typeof ForkProjectParams>

/** GL `use :collection_params`: every filter, order and page parameter of GET /projects. */
export const ListForksParams = Type.Object({ id: Type.String(), ...ListProjectsParams.properties })
export type ListForksParams = Static<typeof ListForksParams>

export const ForkRelationParams = Type.Object({ id: Type.String(), forked_from_id: Type.String() })

export const ProjectIdParams = Type.Object({ id: Type.String() })
