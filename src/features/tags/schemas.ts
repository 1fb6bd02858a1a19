import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { CommitJson } from '../commits/index.js'

// Request params (GL lib/api/tags.rb).

export const ListTagsParams = Type.Object({
  id: Type.String(),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' }),
  order_by: Type.Union([Type.Literal('name'), Type.Literal('updated'), Type.Literal('version')], { default: 'updated' }),
  search: Type.Optional(Type.String()),
  page_token: Type.Optional(Type.String()),
  ...paginationParams,
})
export type ListTagsParams = Static<typeof ListTagsParams>

export const TagParams = Type.Object({
  id: Type.String(),
  tag_name: Type.String(),
})

export const CreateTagParams = Type.Object({
  id: Type.String(),
  tag_name: Type.String(),
  ref: Type.String(),
  message: Type.Optional(Type.String()),
})
export type CreateTagParams = Static<typeof CreateTagParams>

// Response entities (GL lib/api/entities/tag.rb), in GitLab's field order.

export const TagJson = Type.Object({
  name: Type.String(),
  message: Type.String(),
  target: Type.String(),
  commit: Nullable(CommitJson),
  release: Type.Null(),
  protected: Type.Boolean(),
  created_at: Nullable(Type.String()),
})
export type TagJson = Static<typeof TagJson>

export const TagListResponse = Type.Array(TagJson)
