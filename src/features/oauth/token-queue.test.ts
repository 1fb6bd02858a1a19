import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import { digestToken } from '../../core/secrets.js'
import type { Db } from '../../db/index.js'
import type { NewOAuthTokenRow } from '../../db/schema.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { insertAccessToken } from './store.js'
import { createTestApplication, createTestGrant, type TestApplication } from './token-fixtures.js'
import { createTokenQueue } from './token-queue.js'

let server: TestServer
let db: Db
let user: User
let app: TestApplication
const log = { info() {}, warn() {}, error() {}, debug() {} }
const AT = '2026-11-25T12:00:00.000Z'

beforeAll(async () => {
  server = await startTestServer()
  db = server.database.db
  user = await createTestUser(db)
  app = await createTestApplication(db)
})
afterAll(() => server.close())

function tokenRow(extra: Partial<NewOAuthTokenRow> = {}): NewOAuthTokenRow {
  return {
    application_id: app.row.id,
    resource_owner_id: user.id,
    token_digest: digestToken(randomBytes(32).toString('hex')),
    refresh_token_digest: digestToken(randomBytes(32).toString('hex')),
    scopes: 'api',
    expires_in: 7200,
    created_at: AT,
    ...extra,
  }
}

function tokensReplacing(tokenId: number) {
  return db.selectFrom('oauth_access_tokens').select('id').where('previous_token_id', '=', tokenId).execute()
}

describe('the token queue', () => {
  test('two writes using up one refresh token in one batch: the first is stored, the second stores nothing', async () => {
    const old = await insertAccessToken(db, tokenRow())
    const queue = createTokenQueue(db, log, () => new Date())
    const outcomes = await Promise.all(
      [1, 2].map(() => queue.submit({ row: tokenRow({ previous_token_id: old.id }), consumes: { tokenId: old.id }, at: AT })),
    )
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['stored', 'used'])
    expect(await tokensReplacing(old.id)).toHaveLength(1)
    const revoked = await db.selectFrom('oauth_access_tokens').select('revoked_at').where('id', '=', old.id).executeTakeFirstOrThrow()
    expect(revoked.revoked_at).toBe(AT)
  })

  test('two writes using up one code in one batch: only the first is stored', async () => {
    const grant = await createTestGrant(db, app, user)
    const queue = createTokenQueue(db, log, () => new Date())
    const outcomes = await Promise.all(
      [1, 2].map(() => queue.submit({ row: tokenRow({ grant_id: grant.row.id }), consumes: { grantId: grant.row.id }, at: AT })),
    )
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['stored', 'used'])
    const issued = await db.selectFrom('oauth_access_tokens').select('id').where('grant_id', '=', grant.row.id).execute()
    expect(issued).toHaveLength(1)
  })

  test('a write that fails its batch fails alone; the others are stored once', async () => {
    const taken = await insertAccessToken(db, tokenRow())
    const old = await insertAccessToken(db, tokenRow())
    const queue = createTokenQueue(db, log, () => new Date())
    const outcomes = await Promise.all([
      queue.submit({ row: tokenRow({ previous_token_id: old.id }), consumes: { tokenId: old.id }, at: AT }),
      queue.submit({ row: tokenRow({ token_digest: taken.token_digest }), consumes: null, at: AT }),
      queue.submit({ row: tokenRow(), consumes: null, at: AT }),
    ])
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['stored', 'failed', 'stored'])
    // The batch was rolled back before it was written again one by one: the old token was used up once.
    expect(await tokensReplacing(old.id)).toHaveLength(1)
  })
})
