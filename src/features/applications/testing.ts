import { randomBytes } from 'node:crypto'
import { digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { Application } from './index.js'
import { insertApplication } from './store.js'

// Test data for the features that use OAuth applications; imported only by tests and their fixtures.

export interface TestApplication {
  row: Application
  clientId: string
  secret: string
}

export interface TestApplicationOptions {
  name?: string
  redirectUri: string
  scopes?: string
  confidential?: boolean
}

/** An OAuth application (confidential unless told) with a known client id and secret. */
export async function createTestApplication(db: Db, options: TestApplicationOptions): Promise<TestApplication> {
  const clientId = randomBytes(32).toString('hex')
  const secret = `gloas-${randomBytes(32).toString('hex')}`
  const at = new Date().toISOString()
  const row = await insertApplication(db, {
    uid: clientId,
    secret_digest: digestToken(secret),
    name: options.name ?? 'Test client',
    redirect_uri: options.redirectUri,
    scopes: options.scopes ?? 'api read_user openid profile email',
    confidential: options.confidential === false ? 0 : 1,
    created_at: at,
    updated_at: at,
  })
  return { row, clientId, secret }
}
