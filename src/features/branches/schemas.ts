import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { CommitJson } from '../commits/index.js'

// Request params (GL lib/api/branches.rb). `:branch` is a branch name, URL-encoded when it holds a slash.

export const ListBranchesParams = Type.Object({
  id: Type.String(),
  search: Type.Optional(Type.String()),
  regex: Type.Optional(Type.String()),
  sort: Type.Optional(Type.Union([Type.Literal('name_asc'), Type.Literal('updated_asc'), Type.Literal('updated_desc')])),
  page_token: Type.Optional(Type.String()),
  pagination: Type.Optional(Type.String()),
  ...paginationParams,
})
export type ListBranchesParams = Static<typeof ListBranchesParams>

export const BranchParams = Type.Object({
  id: Type.String(),
  branch: Type.String(),
})

export const CreateBranchParams = Type.Object({
  id: Type.String(),
  branch: Type.String(),
  ref: Type.String(),
})

export const ProtectBranchParams = Type.Object({
  id: Type.String(),
  branch: Type.String(),
  developers_can_push: Type.Optional(Type.Boolean()),
  developers_can_merge: Type.Optional(Type.Boolean()),
})

export const ProjectParams = Type.Object({
  id: Type.String(),
})

// Response entities (GL lib/api/entities/branch.rb), in GitLab's field order.

export const BranchJson = Type.Object({
  name: Type.String(),
  commit: CommitJson,
  merged: Type.Boolean(),
  protected: Type.Boolean(),
  developers_can_push: Type.Boolean(),
  developers_can_merge: Type.Boolean(),
  can_push: Type.Boolean(),
  default: Type.Boolean(),
  web_url: Type.String(),
})
export type BranchJson = Static<typeof BranchJson>

export const BranchListResponse = Type.Array(BranchJson)

export const MessageJson = Type.Object({ message: Type.String() })
