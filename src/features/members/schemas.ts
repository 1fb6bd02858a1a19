import { Type, type Static } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import { paginationParams } from '../../http/pagination.js'
import { UserBasicJson } from '../users/index.js'

// Request params (GL lib/api/members.rb, lib/api/helpers/members_helpers.rb and its EE extension). `:id` is a
// project or group id or URL-encoded full path; user ids are integers, and ones beyond any stored id are simply not found.

const UserIdParam = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

/** `user_ids[]=1&user_ids[]=2` or `user_ids=1,2` (Grape's CommaSeparatedToIntegerArray). */
const UserIdList = Type.Array(UserIdParam, { commaSeparated: true })

export const SourceParams = Type.Object({
  id: Type.String(),
})

export const ListMembersParams = Type.Object({
  id: Type.String(),
  query: Type.Optional(Type.String()),
  user_ids: Type.Optional(UserIdList),
  skip_users: Type.Optional(UserIdList),
  show_seat_info: Type.Optional(Type.Boolean()),
  with_saml_identity: Type.Optional(Type.Boolean()),
  ...paginationParams,
})
export type ListMembersParams = Static<typeof ListMembersParams>

export const ListAllMembersParams = Type.Object({
  ...ListMembersParams.properties,
  state: Type.Optional(Type.Union([Type.Literal('awaiting'), Type.Literal('active')])),
})
export type ListAllMembersParams = Static<typeof ListAllMembersParams>

export const MemberParams = Type.Object({
  id: Type.String(),
  user_id: UserIdParam,
})

/** POST: `user_id` is an id or a comma-separated list of them, `username` a name or a list; `expires_at` a date. */
export const CreateMemberParams = Type.Object({
  id: Type.String(),
  access_level: Type.Integer(),
  user_id: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  expires_at: Type.Optional(Nullable(Type.String())),
  invite_source: Type.String({ default: 'members-api' }),
  member_role_id: Type.Optional(Type.Integer()),
})
export type CreateMemberParams = Static<typeof CreateMemberParams>

export const UpdateMemberParams = Type.Object({
  id: Type.String(),
  user_id: UserIdParam,
  access_level: Type.Integer(),
  expires_at: Type.Optional(Nullable(Type.String())),
  member_role_id: Type.Optional(Type.Integer()),
})
export type UpdateMemberParams = Static<typeof UpdateMemberParams>

export const DeleteMemberParams = Type.Object({
  id: Type.String(),
  user_id: UserIdParam,
  skip_subresources: Type.Boolean({ default: false }),
  unassign_issuables: Type.Boolean({ default: false }),
})
export type DeleteMemberParams = Static<typeof DeleteMemberParams>

// Response entity (GL lib/api/entities/member.rb with ee/lib/ee/api/entities/member.rb): the user's UserBasic fields
// merged in, then the membership's; EE fields come last. `created_by` is left out when nobody is recorded.

export const MemberJson = Type.Object({
  ...UserBasicJson.properties,
  access_level: Type.Integer(),
  created_at: Type.String(),
  created_by: Type.Optional(UserBasicJson),
  expires_at: Nullable(Type.String()),
  email: Type.Optional(Type.String()),
  is_using_seat: Type.Optional(Type.Boolean()),
  membership_state: Type.String(),
})
export type MemberJson = Static<typeof MemberJson>

export const MemberListResponse = Type.Array(MemberJson)
