import { Type, type Static } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import { keysetParams } from '../../http/pagination.js'

// Request params (lib/api/users.rb). Path ids are digit strings: the route pattern guarantees the digits, and an id
// too large for any row is simply not found, as in GitLab.

export const UserIdParams = Type.Object({
  id: Type.String(),
})

export const USER_ORDER_COLUMNS = ['id', 'name', 'username', 'created_at', 'updated_at'] as const

export const ListUsersParams = Type.Object({
  username: Type.Optional(Type.String()),
  extern_uid: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  search: Type.Optional(Type.String()),
  active: Type.Boolean({ default: false }),
  external: Type.Boolean({ default: false }),
  exclude_external: Type.Boolean({ default: false }),
  blocked: Type.Boolean({ default: false }),
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
  without_projects: Type.Boolean({ default: false }),
  exclude_internal: Type.Boolean({ default: false }),
  without_project_bots: Type.Boolean({ default: false }),
  admins: Type.Boolean({ default: false }),
  ...keysetParams(USER_ORDER_COLUMNS, 'id'),
  with_custom_attributes: Type.Boolean({ default: false }),
})
export type ListUsersParams = Static<typeof ListUsersParams>

/** The attributes POST and PUT share (GL users.rb `optional_attributes`). */
const optionalAttributes = {
  skype: Type.Optional(Type.String()),
  linkedin: Type.Optional(Type.String()),
  twitter: Type.Optional(Type.String()),
  discord: Type.Optional(Type.String()),
  website_url: Type.Optional(Type.String()),
  organization: Type.Optional(Type.String()),
  job_title: Type.Optional(Type.String()),
  projects_limit: Type.Optional(Type.Integer()),
  bio: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  pronouns: Type.Optional(Type.String()),
  public_email: Type.Optional(Type.String()),
  commit_email: Type.Optional(Type.String()),
  admin: Type.Optional(Type.Boolean()),
  can_create_group: Type.Optional(Type.Boolean()),
  external: Type.Optional(Type.Boolean()),
  theme_id: Type.Optional(Type.Integer()),
  color_scheme_id: Type.Optional(Type.Integer()),
  private_profile: Type.Optional(Type.Boolean()),
  note: Type.Optional(Type.String()),
  /** svc's own: marks the account as using a second factor (the OAuth password grant then refuses it). */
  two_factor_enabled: Type.Optional(Type.Boolean()),
}

export const CreateUserParams = Type.Object({
  email: Type.String(),
  password: Type.Optional(Type.String()),
  reset_password: Type.Optional(Type.Boolean()),
  skip_confirmation: Type.Optional(Type.Boolean()),
  name: Type.String(),
  username: Type.String(),
  force_random_password: Type.Optional(Type.Boolean()),
  ...optionalAttributes,
})
export type CreateUserParams = Static<typeof CreateUserParams>

export const UpdateUserParams = Type.Object({
  id: Type.String(),
  email: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  skip_reconfirmation: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  ...optionalAttributes,
})
export type UpdateUserParams = Static<typeof UpdateUserParams>

export const DeleteUserParams = Type.Object({
  id: Type.String(),
  hard_delete: Type.Optional(Type.Boolean()),
})

// Response entities (lib/api/entities/user_*.rb): each lists its parent's fields first, in GitLab's order.
// Optional fields are the ones GitLab leaves out entirely when the viewer may not read the profile.

const NullableString = Nullable(Type.String())

export const UserBasicJson = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  state: Type.String(),
  locked: Type.Boolean(),
  avatar_url: NullableString,
  web_url: Type.String(),
})
export type UserBasicJson = Static<typeof UserBasicJson>

export const UserJson = Type.Object({
  ...UserBasicJson.properties,
  created_at: Type.Optional(Type.String()),
  bio: Type.String(),
  location: Type.String(),
  public_email: NullableString,
  skype: Type.String(),
  linkedin: Type.String(),
  twitter: Type.String(),
  discord: Type.String(),
  website_url: Type.String(),
  organization: Type.String(),
  job_title: Type.String(),
  pronouns: NullableString,
  bot: Type.Boolean(),
  work_information: NullableString,
  followers: Type.Optional(Type.Integer()),
  following: Type.Optional(Type.Integer()),
  is_followed: Type.Optional(Type.Boolean()),
  local_time: NullableString,
})
export type UserJson = Static<typeof UserJson>

export const IdentityJson = Type.Object({
  provider: Type.String(),
  extern_uid: Type.String(),
})

export const UserPublicJson = Type.Object({
  ...UserJson.properties,
  last_sign_in_at: NullableString,
  confirmed_at: NullableString,
  last_activity_on: NullableString,
  email: Type.String(),
  theme_id: Type.Integer(),
  color_scheme_id: Type.Integer(),
  projects_limit: Type.Integer(),
  current_sign_in_at: NullableString,
  identities: Type.Array(IdentityJson),
  can_create_group: Type.Boolean(),
  can_create_project: Type.Boolean(),
  two_factor_enabled: Type.Boolean(),
  external: Type.Boolean(),
  private_profile: Type.Boolean(),
  commit_email: Type.String(),
})
export type UserPublicJson = Static<typeof UserPublicJson>

export const UserWithAdminJson = Type.Object({
  ...UserPublicJson.properties,
  is_admin: Type.Boolean(),
  note: NullableString,
  namespace_id: Nullable(Type.Integer()),
  created_by: Nullable(UserBasicJson),
  email_reset_offered_at: NullableString,
})
export type UserWithAdminJson = Static<typeof UserWithAdminJson>

export const UserDetailsWithAdminJson = Type.Object({
  ...UserWithAdminJson.properties,
  highest_role: Type.Integer(),
  current_sign_in_ip: NullableString,
  last_sign_in_ip: NullableString,
  sign_in_count: Type.Integer(),
})
export type UserDetailsWithAdminJson = Static<typeof UserDetailsWithAdminJson>

// Response schemas: each entity's fields start with its parent's, so the widest entity also serializes the
// narrower ones, field for field (the router serializes fields in declared order, see http/route.ts).

/** GET /users: UserWithAdmin for administrators, UserBasic for everyone else. */
export const UserListResponse = Type.Array(UserWithAdminJson)

/** GET /users/:id: UserDetailsWithAdmin for administrators, User for everyone else. */
export const UserShowResponse = UserDetailsWithAdminJson

/** GET /user: UserWithAdmin for administrators, UserPublic for everyone else. */
export const CurrentUserResponse = UserWithAdminJson

/** POST /users and PUT /users/:id. */
export const UserWithAdminResponse = UserWithAdminJson
