import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'
import { ERROR_SORTS, ERROR_STATUSES } from './errors.js'

export const ProjectParams = Type.Object({ id: Type.String() })

export const PatchSettingsParams = Type.Object({
  id: Type.String(),
  active: Type.Boolean(),
  integrated: Type.Optional(Type.Boolean()),
})

export const PutSettingsParams = Type.Object({
  id: Type.String(),
  active: Type.Boolean(),
  integrated: Type.Boolean(),
})

/** GL API::Entities::ErrorTracking::ProjectSetting, with the contract's `tracker_external_url` beside GitLab's name. */
export const SettingsJson = Type.Object({
  active: Type.Boolean(),
  project_name: Nullable(Type.String()),
  tracker_external_url: Nullable(Type.String()),
  /** Deprecated alias of tracker_external_url (spec/README.md "Brand and tracker names"). */
  sentry_external_url: Nullable(Type.String()),
  api_url: Nullable(Type.String()),
  integrated: Type.Boolean(),
})
export type SettingsJson = Static<typeof SettingsJson>

export const ListClientKeysParams = Type.Object({ id: Type.String(), ...paginationParams })

// GitLab declares no type for key_id: what is not a key's id is `404 Not found`.
export const ClientKeyParams = Type.Object({ id: Type.String(), key_id: Type.String() })

/** GL API::Entities::ErrorTracking::ClientKey, with the contract's `tracker_dsn` beside GitLab's name. */
export const ClientKeyJson = Type.Object({
  id: Type.Integer(),
  active: Type.Boolean(),
  public_key: Type.String(),
  tracker_dsn: Type.String(),
  /** Deprecated alias of tracker_dsn. */
  sentry_dsn: Type.String(),
})
export type ClientKeyJson = Static<typeof ClientKeyJson>

export const ClientKeyListJson = Type.Array(ClientKeyJson)

// ----- errors (svc's REST form of GraphQL SentryError, SentryDetailedError and SentryErrorStackTrace) -----

const StatusName = Type.Union(ERROR_STATUSES.map((name) => Type.Literal(name)))

export const ListErrorsParams = Type.Object({
  id: Type.String(),
  status: Type.Optional(StatusName),
  search_term: Type.Optional(Type.String()),
  /** svc's shorter name for search_term. */
  query: Type.Optional(Type.String()),
  sort: Type.Optional(Type.Union(ERROR_SORTS.map((name) => Type.Literal(name)))),
  ...paginationParams,
})

export const ErrorParams = Type.Object({ id: Type.String(), error_id: Type.Integer() })

export const UpdateErrorParams = Type.Object({ id: Type.String(), error_id: Type.Integer(), status: StatusName })

export const ErrorEventsParams = Type.Object({ id: Type.String(), error_id: Type.Integer(), ...paginationParams })

const errorFields = {
  id: Type.Integer(),
  title: Type.String(),
  message: Type.String(),
  culprit: Type.String(),
  platform: Nullable(Type.String()),
  status: Type.String(),
  count: Type.Integer(),
  first_seen: Type.String(),
  last_seen: Type.String(),
  external_url: Type.String(),
}

export const ErrorJson = Type.Object(errorFields)
export type ErrorJson = Static<typeof ErrorJson>
export const ErrorListJson = Type.Array(ErrorJson)

export const DetailedErrorJson = Type.Object({
  ...errorFields,
  external_base_url: Type.String(),
  first_release_version: Nullable(Type.String()),
  last_release_version: Nullable(Type.String()),
  integrated: Type.Boolean(),
})
export type DetailedErrorJson = Static<typeof DetailedErrorJson>

const StackTraceEntryJson = Type.Object({
  function: Nullable(Type.String()),
  col: Nullable(Type.Integer()),
  line: Nullable(Type.Integer()),
  file_name: Nullable(Type.String()),
  abs_path: Nullable(Type.String()),
  trace_context: Type.Array(Type.Object({ line: Type.Integer(), context: Type.String() })),
})

export const ErrorEventJson = Type.Object({
  id: Type.Integer(),
  error_id: Type.Integer(),
  description: Type.String(),
  environment: Nullable(Type.String()),
  level: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  release: Nullable(Type.String()),
  occurred_at: Type.String(),
  stack_trace_entries: Type.Array(StackTraceEntryJson),
})
export type ErrorEventJson = Static<typeof ErrorEventJson>
export const ErrorEventListJson = Type.Array(ErrorEventJson)
