import type { OAuthApplicationRow } from '../../db/schema.js'
import { parseScopes } from '../../core/scopes.js'
import type { ApplicationJson, ApplicationWithSecretJson } from './schemas.js'

export function presentApplication(application: OAuthApplicationRow): ApplicationJson {
  return {
    id: application.id,
    application_id: application.uid,
    application_name: application.name,
    callback_url: application.redirect_uri,
    confidential: application.confidential === 1,
    scopes: parseScopes(application.scopes),
  }
}

/** Only right after the application was made or its secret renewed: the secret is stored as a digest. */
export function presentApplicationWithSecret(application: OAuthApplicationRow, secret: string): ApplicationWithSecretJson {
  return { ...presentApplication(application), secret }
}
