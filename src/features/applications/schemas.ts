import { Type, type Static } from '@sinclair/typebox'

export const CreateApplicationParams = Type.Object({
  name: Type.String(),
  redirect_uri: Type.String(),
  // Space-separated; blank is refused before the model sees it (Grape allow_blank: false).
  scopes: Type.String(),
  confidential: Type.Boolean({ default: true }),
})

export const ApplicationIdParams = Type.Object({
  // The numeric id, not the application_id (client_id).
  id: Type.Integer(),
})

/** GL API::Entities::Application, in its field order. */
export const ApplicationJson = Type.Object({
  id: Type.Integer(),
  application_id: Type.String(),
  application_name: Type.String(),
  callback_url: Type.String(),
  confidential: Type.Boolean(),
  scopes: Type.Array(Type.String()),
})
export type ApplicationJson = Static<typeof ApplicationJson>

/** GL API::Entities::ApplicationWithSecret: the entity above, then the secret. */
export const ApplicationWithSecretJson = Type.Object({
  ...ApplicationJson.properties,
  secret: Type.String(),
})
export type ApplicationWithSecretJson = Static<typeof ApplicationWithSecretJson>
