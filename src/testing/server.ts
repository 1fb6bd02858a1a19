import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { buildApp, type App } from '../app.js'
import { buildContext } from '../build-context.js'
import { loadConfig, type Config } from '../config/index.js'
import { openDatabase, type DatabaseHandle } from '../db/index.js'
import { migrateToLatest } from '../db/migrate.js'
import { freshDatabase } from './databases.js'
import { ensureRootUser } from '../features/users/bootstrap.js'
import { ensureRootToken } from '../features/tokens/index.js'
import { jobHandlers } from '../background.js'
import { anonymous } from '../core/caller.js'
import { JobWorker } from '../jobs/index.js'

export { freshDatabase, TEST_DATABASE_URL } from './databases.js'
export const TEST_REDIS_URL = process.env.SVC_TEST_REDIS_URL || null

/** scrypt's cost for passwords in tests: each test user's digest takes microseconds instead of tens of milliseconds. */
export const TEST_PASSWORD_HASH_COST = 16

export interface TestServer {
  url: string
  app: App
  config: Config
  database: DatabaseHandle
  redis: Redis | null
  /** root's token (all of ROOT_TOKEN_SCOPES). */
  rootToken: string
  /** Prefix of this server's Redis keys and channels. */
  redisNamespace: string
  /** The clock the app reads; tests move it with `travel`. */
  travel(milliseconds: number): void
  /** Stops the app clock at `at` (default: its current time); `travel` still moves it. */
  freeze(at?: Date): void
  /** Runs every due job with the server's own handlers, as its worker would, until none is due; answers how many ran. */
  runJobs(): Promise<number>
  close(): Promise<void>
}

export interface TestServerOptions {
  /** Another node of the same deployment: same database, same Redis namespace; its database outlives this server. */
  sharing?: TestServer
  /** Receives the server's log lines (JSON, one a line) at SVC_LOG_LEVEL, which must then be given and not `silent`. */
  logStream?: NodeJS.WritableStream
}

/** Starts svc on an ephemeral port over a fresh database (and Redis when SVC_TEST_REDIS_URL is set). */
export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const { sharing } = options
  const fresh = sharing
    ? { databaseUrl: sharing.config.databaseUrl, dataDir: sharing.config.dataDir, drop: async () => {} }
    : await freshDatabase({ migrated: true })
  const rootToken = sharing?.rootToken ?? `svcpat-${randomBytes(15).toString('base64url')}`
  const config = loadConfig({
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_DATA_DIR: fresh.dataDir,
    SVC_DATABASE_URL: fresh.databaseUrl ?? '',
    SVC_ROOT_PASSWORD: 'root-password-for-tests',
    SVC_ROOT_TOKEN: rootToken,
    SVC_LOG_LEVEL: 'silent',
    SVC_PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    ...env,
  })
  const database = await openDatabase(config)
  await migrateToLatest(database.db)
  await ensureRootToken(database.db, await ensureRootUser(database.db, config, { info() {} }), config.rootToken)
  const redis = TEST_REDIS_URL ? new Redis(TEST_REDIS_URL) : null
  let offset = 0
  let frozenAt: number | null = null
  const redisNamespace = sharing?.redisNamespace ?? `svc-test-${randomBytes(6).toString('hex')}`
  const app = await buildApp({
    config,
    database,
    redis,
    redisNamespace,
    clock: () => new Date(frozenAt ?? Date.now() + offset),
    logStream: options.logStream,
  })
  await app.fastify.listen({ host: '127.0.0.1', port: 0 })
  const address = app.fastify.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const url = `http://127.0.0.1:${port}`
  // Links in responses name the instance by its external URL; in tests that is the server itself.
  config.externalUrl = url
  return {
    url,
    app,
    config,
    database,
    redis,
    rootToken,
    redisNamespace,
    travel(milliseconds) {
      if (frozenAt === null) offset += milliseconds
      else frozenAt += milliseconds
    },
    freeze(at) {
      frozenAt = at ? at.getTime() : Date.now() + offset
    },
    async runJobs() {
      const silent = { info() {}, warn() {}, error() {}, debug() {} }
      const worker = new JobWorker({
        db: database.db,
        handlers: jobHandlers,
        clock: app.parts.clock,
        context: () => buildContext(app.parts, anonymous, silent),
      })
      return worker.drain()
    },
    async close() {
      await app.close()
      await database.close()
      if (redis) await redis.quit()
      await fresh.drop()
    },
  }
}
