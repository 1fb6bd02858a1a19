import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { UserBasicJson } from '../users/index.js'

const Visibility = Type.Union([Type.Literal('private'), Type.Literal('internal'), Type.Literal('public')])
const DateTimeParam = Type.String({ format: 'date-time' })

// GL Entities::BasicSnippet, in its order; the repository URLs only when the repository exists.
const basicSnippetFields = {
  id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  visibility: Type.String(),
  author: UserBasicJson,
  created_at: Type.String(),
  updated_at: Type.String(),
  project_id: Nullable(Type.Integer()),
  web_url: Type.String(),
  raw_url: Type.String(),
  ssh_url_to_repo: Type.Optional(Type.String()),
  http_url_to_repo: Type.Optional(Type.String()),
}

/** GL Entities::BasicSnippet: the snippet a storage move embeds. */
export const BasicSnippetJson = Type.Object(basicSnippetFields)
export type BasicSnippetJson = Static<typeof BasicSnippetJson>

/** GL Entities::Snippet (PersonalSnippet and ProjectSnippet add nothing); repository_storage for admins only. */
export const SnippetJson = Type.Object({
  ...basicSnippetFields,
  file_name: Nullable(Type.String()),
  files: Type.Array(Type.Object({ path: Type.String(), raw_url: Type.String() })),
  imported: Type.Boolean(),
  imported_from: Type.String(),
  repository_storage: Type.Optional(Type.String()),
})
export type SnippetJson = Static<typeof SnippetJson>
export const SnippetListJson = Type.Array(SnippetJson)

export const ListSnippetsParams = Type.Object({
  created_after: Type.Optional(DateTimeParam),
  created_before: Type.Optional(DateTimeParam),
  ...paginationParams,
})

export const ListAllSnippetsParams = Type.Object({
  created_after: Type.Optional(DateTimeParam),
  created_before: Type.Optional(DateTimeParam),
  repository_storage: Type.Optional(Type.String()),
  ...paginationParams,
})

export const SnippetIdParams = Type.Object({ id: Type.Integer() })

export const ProjectSnippetListParams = Type.Object({ id: Type.String(), ...paginationParams })
export const ProjectSnippetIdParams = Type.Object({ id: Type.String(), snippet_id: Type.Integer() })

export const SnippetFileParams = Type.Object({ id: Type.Integer(), ref: Type.String(), file_path: Type.String() })
export const ProjectSnippetFileParams = Type.Object({
  id: Type.String(),
  snippet_id: Type.Integer(),
  ref: Type.String(),
  file_path: Type.String(),
})

const CreateFile = Type.Object({ file_path: Type.String(), content: Type.String() })

const createFields = {
  title: Type.String(),
  description: Type.Optional(Type.String()),
  files: Type.Optional(Type.Array(CreateFile)),
  content: Type.Optional(Type.String()),
  file_name: Type.Optional(Type.String()),
}

export const CreateSnippetParams = Type.Object({
  ...createFields,
  visibility: Type.Union([Type.Literal('private'), Type.Literal('internal'), Type.Literal('public')], { default: 'internal' }),
})

export const CreateProjectSnippetParams = Type.Object({ id: Type.String(), ...createFields, visibility: Visibility })

const UpdateFile = Type.Object({
  action: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete'), Type.Literal('move')]),
  content: Type.Optional(Type.String()),
  file_path: Type.Optional(Type.String()),
  previous_path: Type.Optional(Type.String()),
})

const updateFields = {
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(Visibility),
  files: Type.Optional(Type.Array(UpdateFile)),
  content: Type.Optional(Type.String()),
  file_name: Type.Optional(Type.String()),
}

export const UpdateSnippetParams = Type.Object({ id: Type.Integer(), ...updateFields })
export const UpdateProjectSnippetParams = Type.Object({ id: Type.String(), snippet_id: Type.Integer(), ...updateFields })

export type SnippetFileAction = Static<typeof UpdateFile>
