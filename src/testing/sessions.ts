import type { User } from '../core/caller.js'
import { defaultSettings } from '../core/settings.js'
import { csrfTokenOf, SESSION_COOKIE, startSession } from '../features/sessions/service.js'
import type { TestServer } from './server.js'

export interface TestSession {
  /** The Cookie header value to send. */
  cookie: string
  /** A valid authenticity_token for this session's forms. */
  csrfToken: string
}

/** A signed-in browser session of `user` (null: a visitor's session), without going through the sign-in form. */
export async function createTestSession(server: TestServer, user: Pick<User, 'id'> | null): Promise<TestSession> {
  const { session, cookieValue } = await startSession(
    server.database.db,
    { userId: user?.id ?? null, ip: '127.0.0.1', userAgent: 'test' },
    defaultSettings,
    new Date(),
  )
  return { cookie: `${SESSION_COOKIE}=${cookieValue}`, csrfToken: csrfTokenOf(session) }
}
