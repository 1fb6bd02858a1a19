import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import type { Settings } from '../../core/settings.js'
import { contextFor } from '../../testing/context.js'
import { createTestUser } from '../../testing/factories.js'
import { startTestServer, type TestServer } from '../../testing/server.js'
import { authenticateWithPassword } from './index.js'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

function anonymousContext(settings: Partial<Settings> = {}, now = new Date()): Context {
  const ctx = contextFor(server, null, now)
  return { ...ctx, settings: { ...ctx.settings, ...settings } }
}

async function userRow(id: number): Promise<User> {
  return server.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

describe('authenticateWithPassword (for the OAuth password grant)', () => {
  test('answers the user for a right username or e-mail and password, any case', async () => {
    const user = await createTestUser(server.database.db)
    const ctx = anonymousContext()
    expect((await authenticateWithPassword(ctx, user.username.toUpperCase(), 'password123'))?.id).toBe(user.id)
    expect((await authenticateWithPassword(ctx, user.email.toUpperCase(), 'password123'))?.id).toBe(user.id)
    // Not a web sign-in: nothing is tracked.
    expect((await userRow(user.id)).sign_in_count).toBe(0)
  })

  test('null for a wrong password or an unknown login; wrong passwords count and a success resets the count', async () => {
    const user = await createTestUser(server.database.db)
    const ctx = anonymousContext()
    expect(await authenticateWithPassword(ctx, user.username, 'wrong')).toBeNull()
    expect(await authenticateWithPassword(ctx, user.username, '')).toBeNull()
    expect(await authenticateWithPassword(ctx, 'nobody-at-all', 'password123')).toBeNull()
    expect(await authenticateWithPassword(ctx, '', 'password123')).toBeNull()
    expect((await userRow(user.id)).failed_attempts).toBe(2)
    expect(await authenticateWithPassword(ctx, user.username, 'password123')).not.toBeNull()
    expect((await userRow(user.id)).failed_attempts).toBe(0)
  })

  test('locks at max_login_attempts and refuses the right password until the unlock period passes', async () => {
    const user = await createTestUser(server.database.db)
    const at = new Date()
    const ctx = anonymousContext({ max_login_attempts: 2, failed_login_attempts_unlock_period_in_minutes: 3 }, at)
    await authenticateWithPassword(ctx, user.username, 'wrong')
    await authenticateWithPassword(ctx, user.username, 'wrong')
    expect(new Date((await userRow(user.id)).locked_at!).toISOString()).toBe(at.toISOString())
    expect(await authenticateWithPassword(ctx, user.username, 'password123')).toBeNull()
    expect((await userRow(user.id)).failed_attempts).toBe(3)

    const later = anonymousContext(
      { max_login_attempts: 2, failed_login_attempts_unlock_period_in_minutes: 3 },
      new Date(at.getTime() + 180_000),
    )
    expect((await authenticateWithPassword(later, user.username, 'password123'))?.id).toBe(user.id)
    expect(await userRow(user.id)).toMatchObject({ failed_attempts: 0, locked_at: null })
  })

  test('with max_login_attempts 1, the first wrong password locks', async () => {
    const user = await createTestUser(server.database.db)
    const ctx = anonymousContext({ max_login_attempts: 1 })
    expect(await authenticateWithPassword(ctx, user.username, 'wrong')).toBeNull()
    expect((await userRow(user.id)).locked_at).not.toBeNull()
  })

  test.each(['blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval', 'deactivated'])('null for a %s user', async (state) => {
    const user = await createTestUser(server.database.db, { state })
    expect(await authenticateWithPassword(anonymousContext(), user.username, 'password123')).toBeNull()
    expect((await userRow(user.id)).state).toBe(state)
  })

  test('null when password authentication for Git and API clients is off', async () => {
    const user = await createTestUser(server.database.db)
    const ctx = anonymousContext({ password_authentication_enabled_for_git: false })
    expect(await authenticateWithPassword(ctx, user.username, 'password123')).toBeNull()
    expect((await userRow(user.id)).failed_attempts).toBe(0)
  })

  test('a user without a password never passes', async () => {
    const user = await createTestUser(server.database.db)
    await server.database.db.updateTable('users').set({ password_digest: null }).where('id', '=', user.id).execute()
    expect(await authenticateWithPassword(anonymousContext(), user.username, '')).toBeNull()
  })
})
