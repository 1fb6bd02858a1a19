import { secretsEqual, digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { OAuthApplicationRow } from '../../db/schema.js'
import { findApplicationByUid } from './store.js'

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
