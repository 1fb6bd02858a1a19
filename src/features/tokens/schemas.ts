import { Type, type Static } from '@sinclair/typebox'
import { Nullable } from '../../http/schema.js'
import { paginationParams } from '../../http/pagination.js'
import { AVAILABLE_SCOPES } from '../../core/scopes.js'

const Scope = Type.Union(AVAILABLE_SCOPES.map((scope) => Type.Literal(scope)))
const DateParam = Type.String({ format: 'date' })
const DateTimeParam = Type.String({ format: 'date-time' })

export const CreatePersonalAccessTokenParams = Type.Object({
  user_id: Type.Integer(),
  name: Type.String(),
  // Grape CommaSeparatedToArray: `scopes=api,read_user` is accepted as well as an array.
  scopes: Type.Array(Scope, { commaSeparated: true }),
  description: Type.Optional(Type.String()),
  expires_at: Type.Optional(DateParam),
})

export const UserIdParams = Type.Object({ user_id: Type.Integer() })

export const ListImpersonationTokensParams = Type.Object({
  user_id: Type.Integer(),
  ...paginationParams,
  state: Type.Union([Type.Literal('all'), Type.Literal('active'), Type.Literal('inactive')], { default: 'all' }),
})

export const CreateImpersonationTokenParams = Type.Object({
  user_id: Type.Integer(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  expires_at: Type.Optional(DateParam),
  // Unknown scopes are a model validation here, not a parameter error (GL users.rb declares no values).
  scopes: Type.Optional(Type.Array(Type.String(), { commaSeparated: true })),
})

export const ImpersonationTokenParams = Type.Object({
  user_id: Type.Integer(),
  impersonation_token_id: Type.Integer(),
})

export const ListPersonalAccessTokensParams = Type.Object({
  user_id: Type.Optional(Type.Integer()),
  revoked: Type.Optional(Type.Boolean()),
  state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
  created_before: Type.Optional(DateTimeParam),
  created_after: Type.Optional(DateTimeParam),
  last_used_before: Type.Optional(DateTimeParam),
  last_used_after: Type.Optional(DateTimeParam),
  expires_before: Type.Optional(DateParam),
  expires_after: Type.Optional(DateParam),
  search: Type.Optional(Type.String()),
  sort: Type.Optional(Type.String()),
  ...paginationParams,
})
export type ListPersonalAccessTokensInput = Static<typeof ListPersonalAccessTokensParams>

/** `:id` is not typed in GitLab: anything that is not a token id is simply not found. */
export const TokenIdParams = Type.Object({ id: Type.String() })

export const RotateParams = Type.Object({ expires_at: Type.Optional(DateParam) })
export const RotateTokenParams = Type.Object({ id: Type.String(), expires_at: Type.Optional(DateParam) })

const tokenFields = {
  id: Type.Integer(),
  name: Type.String(),
  revoked: Type.Boolean(),
  created_at: Type.String(),
  description: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  user_id: Type.Integer(),
  last_used_at: Nullable(Type.String()),
  active: Type.Boolean(),
  expires_at: Nullable(Type.String()),
}

/** GL lib/api/entities/personal_access_token.rb, in its order. */
export const PersonalAccessTokenJson = Type.Object(tokenFields)
export type PersonalAccessTokenJson = Static<typeof PersonalAccessTokenJson>

export const PersonalAccessTokenWithTokenJson = Type.Object({ ...tokenFields, token: Type.String() })
export type PersonalAccessTokenWithTokenJson = Static<typeof PersonalAccessTokenWithTokenJson>

export const PersonalAccessTokenWithLastUsedIpsJson = Type.Object({ ...tokenFields, last_used_ips: Type.Array(Type.String()) })
export type PersonalAccessTokenWithLastUsedIpsJson = Static<typeof PersonalAccessTokenWithLastUsedIpsJson>

export const ImpersonationTokenJson = Type.Object({ ...tokenFields, impersonation: Type.Boolean() })
export type ImpersonationTokenJson = Static<typeof ImpersonationTokenJson>

export const ImpersonationTokenWithTokenJson = Type.Object({ ...tokenFields, impersonation: Type.Boolean(), token: Type.String() })
export type ImpersonationTokenWithTokenJson = Static<typeof ImpersonationTokenWithTokenJson>
