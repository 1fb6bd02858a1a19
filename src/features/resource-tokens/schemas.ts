import { Type, type Static } from '@sinclair/typebox'
import { RESOURCE_BOT_SCOPES } from '../../core/scopes.js'
import { paginationParams } from '../../http/pagination.js'
import { PersonalAccessTokenJson } from '../tokens/index.js'

const Scope = Type.Union(RESOURCE_BOT_SCOPES.map((scope) => Type.Literal(scope)))
const DateParam = Type.String({ format: 'date' })

/** GL Gitlab::Access.options_with_owner: the roles a token may be given. */
const AccessLevelParam = Type.Union([10, 15, 20, 30, 40, 50].map((level) => Type.Literal(level)))

export const ListResourceTokensParams = Type.Object({
  id: Type.String(),
  state: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
  ...paginationParams,
})

/** `:token_id` is a String in GitLab: anything that is not a token id is simply not found. */
export const ResourceTokenParams = Type.Object({ id: Type.String(), token_id: Type.String() })

export const CreateResourceTokenParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Scope, { commaSeparated: true }),
  description: Type.Optional(Type.String()),
  expires_at: Type.Optional(DateParam),
  access_level: Type.Optional(AccessLevelParam),
})
export type CreateResourceTokenParams = Static<typeof CreateResourceTokenParams>

export const RotateResourceTokenParams = Type.Object({ id: Type.String(), token_id: Type.String(), expires_at: Type.Optional(DateParam) })

// GitLab's resource token entity is the personal one with the bot's role added.
const fields = { ...PersonalAccessTokenJson.properties, access_level: Type.Integer() }

/** GL lib/api/entities/resource_access_token.rb, in its order. */
export const ResourceAccessTokenJson = Type.Object(fields)
export type ResourceAccessTokenJson = Static<typeof ResourceAccessTokenJson>

export const ResourceAccessTokenWithTokenJson = Type.Object({ ...fields, token: Type.String() })
export type ResourceAccessTokenWithTokenJson = Static<typeof ResourceAccessTokenWithTokenJson>
