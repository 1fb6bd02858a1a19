import type { User } from '../core/caller.js'
import type { Context } from '../core/context.js'
import { defaultSettings } from '../core/settings.js'
import type { TestServer } from './server.js'

const silent = { info() {}, warn() {}, error() {}, debug() {} }

/** A service Context for a test server's database, acting as `user` (anonymous when null) with an `api` token. */
export function contextFor(server: TestServer, user: User | null, now = new Date()): Context {
  return {
    db: server.database.db,
    caller: { user, credential: user ? { kind: 'personal_access_token', id: 0, scopes: ['api'] } : null, sudoFrom: null },
    config: server.config,
    settings: { ...defaultSettings },
    log: silent,
    now: () => now,
    memo: server.app.parts.memo,
  }
}
