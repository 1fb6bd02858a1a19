import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { BasicProjectJson } from '../projects/index.js'

// Request params (GL lib/api/environments.rb).

const RecordId = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })

/** GL Environment.tiers. */
export const TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const
export type Tier = (typeof TIERS)[number]
const TierParam = Type.Union(TIERS.map((tier) => Type.Literal(tier)))

/** GL Environment.valid_states. */
export const STATES = ['available', 'stopping', 'stopped'] as const
export type EnvironmentState = (typeof STATES)[number]

export const ListEnvironmentsParams = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  search: Type.Optional(Type.String()),
  states: Type.Optional(Type.Union(STATES.map((state) => Type.Literal(state)))),
  ...paginationParams,
})
export type ListEnvironmentsParams = Static<typeof ListEnvironmentsParams>

export const CreateEnvironmentParams = Type.Object({
  id: Type.String(),
  name: Type.String(),
  external_url: Type.Optional(Nullable(Type.String())),
  // Declared only to refuse it (GL `absence`): the slug is generated.
  slug: Type.Optional(Type.Unknown()),
  tier: Type.Optional(TierParam),
})
export type CreateEnvironmentParams = Static<typeof CreateEnvironmentParams>

export const EnvironmentParams = Type.Object({
  id: Type.String(),
  environment_id: RecordId,
})

export const UpdateEnvironmentParams = Type.Object({
  id: Type.String(),
  environment_id: RecordId,
  external_url: Type.Optional(Nullable(Type.String())),
  slug: Type.Optional(Type.Unknown()),
  tier: Type.Optional(TierParam),
})
export type UpdateEnvironmentParams = Static<typeof UpdateEnvironmentParams>

export const StopEnvironmentParams = Type.Object({
  id: Type.String(),
  environment_id: RecordId,
  force: Type.Boolean({ default: false }),
})

// Response entity (GL lib/api/entities/environment.rb over environment_basic.rb). `project` is left out of the
// single GET, which shows `last_deployment` instead; svc records no deployments, so it is null.

export const EnvironmentJson = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  external_url: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  tier: Type.String(),
  project: Type.Optional(BasicProjectJson),
  last_deployment: Type.Optional(Type.Null()),
  state: Type.String(),
  auto_stop_at: Nullable(Type.String()),
  description: Nullable(Type.String()),
  auto_stop_setting: Type.String(),
})
export type EnvironmentJson = Static<typeof EnvironmentJson>
export const EnvironmentListResponse = Type.Array(EnvironmentJson)
