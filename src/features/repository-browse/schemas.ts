import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'

// Request params (GL lib/api/repositories.rb, lib/api/projects.rb `:id/languages`).

/** Grape's CommaSeparatedToArray: `a,b` or `a[]=…`. */
const CommaSeparated = Type.Array(Type.String(), { commaSeparated: true })

export const TREE_PAGINATIONS = ['legacy', 'keyset', 'none'] as const

export const ListTreeParams = Type.Object({
  id: Type.String(),
  ref: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  recursive: Type.Boolean({ default: false }),
  ...paginationParams,
  pagination: Type.Union(
    TREE_PAGINATIONS.map((p) => Type.Literal(p)),
    { default: 'legacy' },
  ),
  page_token: Type.Optional(Type.String()),
})
export type ListTreeParams = Static<typeof ListTreeParams>

export const BlobParams = Type.Object({
  id: Type.String(),
  sha: Type.String(),
})

export const ArchiveParams = Type.Object({
  id: Type.String(),
  sha: Type.Optional(Type.String()),
  format: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  include_lfs_blobs: Type.Boolean({ default: true }),
  exclude_paths: Type.Array(Type.String(), { commaSeparated: true, default: [] }),
})

export const ListContributorsParams = Type.Object({
  id: Type.String(),
  ...paginationParams,
  ref: Type.Optional(Type.String()),
  order_by: Type.Union([Type.Literal('email'), Type.Literal('name'), Type.Literal('commits')], { default: 'commits' }),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' }),
})
export type ListContributorsParams = Static<typeof ListContributorsParams>

export const MergeBaseParams = Type.Object({
  id: Type.String(),
  refs: CommaSeparated,
})

export const LanguagesParams = Type.Object({
  id: Type.String(),
})

// Responses.

/** GL Entities::TreeObject. */
export const TreeObjectJson = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  path: Type.String(),
  mode: Type.String(),
})
export type TreeObjectJson = Static<typeof TreeObjectJson>
export const TreeListResponse = Type.Array(TreeObjectJson)

/** The blob answer of GL `GET :id/repository/blobs/:sha`. */
export const BlobJson = Type.Object({
  size: Type.Integer(),
  encoding: Type.String(),
  content: Type.String(),
  sha: Type.String(),
})
export type BlobJson = Static<typeof BlobJson>

/** GL Entities::Contributor. */
export const ContributorJson = Type.Object({
  name: Type.String(),
  email: Type.String(),
  commits: Type.Integer(),
  additions: Type.Integer(),
  deletions: Type.Integer(),
})
export type ContributorJson = Static<typeof ContributorJson>
export const ContributorListResponse = Type.Array(ContributorJson)

/** Language name to its share of the code in percent, largest first. */
export const LanguagesJson = Type.Record(Type.String(), Type.Number())
