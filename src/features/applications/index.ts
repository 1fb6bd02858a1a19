import { secretsEqual, digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { OAuthApplicationRow } from '../../db/schema.js'
import { parseScopes } from '../../core/scopes.js'
import { findApplicationById as findApplicationRowById, findApplicationByUid } from './store.js'
import { splitRedirectUris } from './validation.js'

export type Application = OAuthApplicationRow

/** The application a client_id names, or null. */
export async function findApplication(db: Db, clientId: string): Promise<Application | null> {
  const [application] = await findApplicationByUid(db, clientId)
  return application ?? null
}

/** Whether `secret` is the application's client secret; compared in constant time on the stored digest. */
export function isApplicationSecret(application: Application, secret: string): boolean {
  return secretsEqual(digestToken(secret), application.secret_digest)
}

/** The application with this numeric id (not its client_id), or null. */
export async function findApplicationById(db: Db, id: number): Promise<Application | null> {
  return (await findApplicationRowById(db, id)) ?? null
}

/** The registered redirect URIs, in the order given. */
export function redirectUrisOf(application: Pick<Application, 'redirect_uri'>): string[] {
  return splitRedirectUris(application.redirect_uri)
}

/** The scopes the application was registered with (none: the server's default applies). */
export function scopesOf(application: Pick<Application, 'scopes'>): string[] {
  return parseScopes(application.scopes)
}

export {
  APPLICATION_SECRET_PREFIX,
  listAuthorizedApplications,
  revokeAuthorizedApplication,
  type AuthorizedApplication,
} from './service.js'
