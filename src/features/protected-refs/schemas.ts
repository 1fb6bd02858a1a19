import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'

// Request params (GL lib/api/protected_branches.rb, lib/api/protected_tags.rb, ProtectedRefs::AccessLevelParams).
// `:name` is a branch or tag name or wildcard, URL-encoded when it holds a slash.

/** One entry of `allowed_to_push`, `allowed_to_merge`, `allowed_to_unprotect` or `allowed_to_create`. */
const AccessEntryParams = Type.Object({
  id: Type.Optional(Type.Integer()),
  access_level: Type.Optional(Type.Integer()),
  user_id: Type.Optional(Type.Integer()),
  group_id: Type.Optional(Type.Integer()),
  deploy_key_id: Type.Optional(Type.Integer()),
  _destroy: Type.Optional(Type.Boolean()),
})
export type AccessEntryParams = Static<typeof AccessEntryParams>

export const ListProtectedRefsParams = Type.Object({
  id: Type.String(),
  search: Type.Optional(Type.String()),
  ...paginationParams,
})

export const ProtectedRefParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
})

export const CreateProtectedBranchParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
  push_access_level: Type.Optional(Type.Integer()),
  merge_access_level: Type.Optional(Type.Integer()),
  unprotect_access_level: Type.Optional(Type.Integer()),
  allow_force_push: Type.Boolean({ default: false }),
  code_owner_approval_required: Type.Boolean({ default: false }),
  allowed_to_push: Type.Optional(Type.Array(AccessEntryParams)),
  allowed_to_merge: Type.Optional(Type.Array(AccessEntryParams)),
  allowed_to_unprotect: Type.Optional(Type.Array(AccessEntryParams)),
})
export type CreateProtectedBranchParams = Static<typeof CreateProtectedBranchParams>

export const UpdateProtectedBranchParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
  allow_force_push: Type.Optional(Type.Boolean()),
  code_owner_approval_required: Type.Optional(Type.Boolean()),
  allowed_to_push: Type.Optional(Type.Array(AccessEntryParams)),
  allowed_to_merge: Type.Optional(Type.Array(AccessEntryParams)),
  allowed_to_unprotect: Type.Optional(Type.Array(AccessEntryParams)),
})
export type UpdateProtectedBranchParams = Static<typeof UpdateProtectedBranchParams>

export const CreateProtectedTagParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
  create_access_level: Type.Optional(Type.Integer()),
  allowed_to_create: Type.Optional(Type.Array(AccessEntryParams)),
})
export type CreateProtectedTagParams = Static<typeof CreateProtectedTagParams>

// Response entities (GL lib/api/entities/protected_ref_access.rb, protected_branch.rb, protected_tag.rb) as CE shows them.

export const ProtectedRefAccessJson = Type.Object({
  id: Type.Integer(),
  access_level: Type.Integer(),
  access_level_description: Type.String(),
})
export type ProtectedRefAccessJson = Static<typeof ProtectedRefAccessJson>

export const ProtectedBranchJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  push_access_levels: Type.Array(ProtectedRefAccessJson),
  merge_access_levels: Type.Array(ProtectedRefAccessJson),
  allow_force_push: Type.Boolean(),
  code_owner_approval_required: Type.Boolean(),
})
export type ProtectedBranchJson = Static<typeof ProtectedBranchJson>

export const ProtectedTagJson = Type.Object({
  name: Type.String(),
  create_access_levels: Type.Array(ProtectedRefAccessJson),
})
export type ProtectedTagJson = Static<typeof ProtectedTagJson>

export const ProtectedBranchListResponse = Type.Array(ProtectedBranchJson)
export const ProtectedTagListResponse = Type.Array(ProtectedTagJson)
