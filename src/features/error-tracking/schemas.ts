import { Type, type Static } from '@sinclair/typebox'
import { paginationParams } from '../../http/pagination.js'
import { Nullable } from '../../http/schema.js'

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
