#!/usr/bin/env node
import { endOfStartup } from './startup-heap.js'
import { parseArgs } from 'node:util'
import pino from 'pino'
import { buildApp } from './app.js'
import { redactingLoggerOptions } from './http/log-redaction.js'
import { ConfigError, loadConfig, type Config } from './config/index.js'
import { openDatabase } from './db/index.js'
import { migrateToLatest } from './db/migrate.js'
import { runAdminCommand, ADMIN_COMMANDS_HELP, printOpenApiDocument } from './cli.js'
import { ensureRootUser } from './features/users/bootstrap.js'
import { ensureRootToken } from './features/tokens/index.js'
import { jobHandlers, periodicJobs } from './background.js'
import { JobWorker } from './jobs/index.js'
import { anonymous } from './core/caller.js'
import { buildContext } from './build-context.js'

const HELP = `Usage: svc [command] [options]

Commands:
  serve          Migrate the database and serve HTTP (default)
  migrate        Apply pending database migrations and exit
${ADMIN_COMMANDS_HELP}
  openapi        Print the OpenAPI 3.1 document of /api/v4 (as served at /api/v4/openapi.json)
  --help         Show this help

Configuration is read from the environment: SVC_HOST, SVC_PORT, SVC_EXTERNAL_URL, SVC_DATA_DIR,
SVC_DATABASE_URL, SVC_REDIS_URL, SVC_TIER, SVC_ROOT_PASSWORD, SVC_ROOT_TOKEN, SVC_LOG_LEVEL, SVC_SMTP_URL.
`

async function serve(config: Config) {
  const log = pino(redactingLoggerOptions(config.logLevel))
  const database = await openDatabase(config)
  await migrateToLatest(database.db)
  await ensureRootToken(database.db, await ensureRootUser(database.db, config, log), config.rootToken)
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 })
    : null
  if (redis) await redis.connect()
  const app = await buildApp({ config, database, redis })
  await app.fastify.listen({ host: config.host, port: config.port })
  // Every node runs a worker over the shared jobs table (DESIGN.md § Jobs); each feature says what runs its jobs.
  // Each job acts with the app's settings as they are when it starts, as requests do.
  const worker = new JobWorker({
    db: database.db,
    handlers: jobHandlers,
    periodic: periodicJobs,
    context: () => buildContext(app.parts, anonymous, log),
    leaseMs: config.jobLeaseMs,
    log,
  })
  worker.start()
  endOfStartup()

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    // In-flight requests finish; new connections are refused; then storage closes.
    await app.close()
    await worker.stop()
    await database.close()
    if (redis) await redis.quit()
    log.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, strict: false, options: { help: { type: 'boolean' } } })
  const command = positionals[0] ?? 'serve'
  if (values.help || command === 'help') {
    process.stdout.write(HELP)
    return
  }
  const config = loadConfig()
  if (command === 'serve') return serve(config)
  if (command === 'migrate') {
    const database = await openDatabase(config)
    const applied = await migrateToLatest(database.db)
    await database.close()
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n')
    return
  }
  if (command === 'openapi') return printOpenApiDocument(config)
  if (await runAdminCommand(command, argv.slice(1), config)) return
  process.stderr.write(`svc: unknown command '${command}' (see svc --help)\n`)
  process.exitCode = 2
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc: ${error.message}\n`)
    process.exit(78)
  }
  process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
