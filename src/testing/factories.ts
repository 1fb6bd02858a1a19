import { randomBytes } from 'node:crypto'
import type { User } from '../core/caller.js'
import { digestToken, generateToken, hashPassword } from '../core/secrets.js'
import type { Db } from '../db/index.js'
import type { NewUserRow, TokenRow } from '../db/schema.js'
import { insertToken } from '../features/tokens/store.js'
import { insertUser } from '../features/users/store.js'

let sequence = 0

/** A user with unique username and e-mail; password `password123` unless given. */
export async function createTestUser(db: Db, overrides: Partial<NewUserRow> & { password?: string } = {}): Promise<User> {
  sequence += 1
  const suffix = `${sequence}${randomBytes(3).toString('hex')}`
  const { password, ...rest } = overrides
  const at = new Date().toISOString()
  return insertUser(db, {
    username: `user${suffix}`,
    email: `user${suffix}@example.com`,
    name: `User ${suffix}`,
    password_digest: await hashPassword(password ?? 'password123'),
    confirmed_at: at,
    created_at: at,
    updated_at: at,
    ...rest,
  })
}

export interface TestToken {
  row: TokenRow
  /** The plaintext value, as a client sends it. */
  value: string
}

/** A personal (or impersonation) access token of `user`. */
export async function createTestToken(
  db: Db,
  user: Pick<User, 'id'>,
  options: { scopes?: string[]; expiresAt?: string | null; impersonation?: boolean; revoked?: boolean; name?: string } = {},
): Promise<TestToken> {
  const value = generateToken()
  const at = new Date().toISOString()
  const row = await insertToken(db, {
    user_id: user.id,
    name: options.name ?? 'test token',
    token_digest: digestToken(value),
    scopes: JSON.stringify(options.scopes ?? ['api']),
    impersonation: options.impersonation ? 1 : 0,
    revoked: options.revoked ? 1 : 0,
    expires_at: options.expiresAt ?? null,
    created_at: at,
    updated_at: at,
  })
  return { row, value }
}

/** Many users at once, without passwords, for tests of large lists. */
export async function createManyTestUsers(db: Db, count: number): Promise<void> {
  const at = new Date().toISOString()
  const batch = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, i) => {
      const n = `${batch}x${start + i}`
      return { username: `bulk${n}`, email: `bulk${n}@example.com`, name: `Bulk ${n}`, created_at: at, updated_at: at }
    })
    await db.insertInto('users').values(rows).execute()
  }
}
