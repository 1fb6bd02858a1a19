#!/usr/bin/env node
import './startup-heap.js'
import cluster from 'node:cluster'
import { parseArgs } from 'node:util'
import pino from 'pino'
import { redactingLoggerOptions } from './http/log-redaction.js'
import { ConfigError, loadConfig, type Config } from './config/index.js'
import { openDatabase } from './db/index.js'
import { formatMigrationStatus, migrateToLatest, readMigrationState } from './db/migrate.js'

// The app, the features and the CLI commands are imported when a command needs them, so that the primary process of
// `svc serve`, which only forks and watches the workers, never loads them.

const help = (adminCommands: string) => `Usage: svc [command] [options]

Commands:
  serve          Migrate the database and serve HTTP (default)
  migrate        Apply pending database migrations and exit
  migrate --status
                 List every migration as applied (with when) or pending, and any applied that this version lacks
${adminCommands}
  openapi        Print the OpenAPI 3.1 document of /api/v4 (as served at /api/v4/openapi.json)
  --help         Show this help

Configuration is read from the environment: SVC_HOST, SVC_PORT, SVC_EXTERNAL_URL, SVC_DATA_DIR,
SVC_DATABASE_URL, SVC_REDIS_URL, SVC_TIER, SVC_ROOT_PASSWORD, SVC_ROOT_TOKEN, SVC_LOG_LEVEL, SVC_SMTP_URL,
SVC_EMAIL_FROM, SVC_EMAIL_DISPLAY_NAME, SVC_EMAIL_REPLY_TO,
SVC_TRUSTED_PROXIES (comma-separated addresses or CIDR ranges of proxies whose X-Forwarded-For/-Proto are believed),
SVC_MONITORING_IP_WHITELIST (client addresses or CIDR ranges that may read /-/health, /-/metrics, /-/readiness, /-/liveness;
default 127.0.0.0/8,::1/128),
SVC_WORKERS (processes serving HTTP; default one per CPU core, 1 serves from a single process).
`

/**
 * `svc serve`: migrate and bootstrap once, then serve from this process (SVC_WORKERS=1) or from SVC_WORKERS worker
 * processes forked by this one (primary.ts), each of which runs this function again and lands in serveWorker.
 */
async function serve(config: Config) {
  const log = pino(redactingLoggerOptions(config.logLevel))
  if (cluster.isWorker) return (await import('./serve.js')).serveWorker(config, log)
  const database = await openDatabase(config)
  await (await import('./prepare.js')).prepareDatabase(database, config, log)
  if (config.workers === 1) return (await import('./serve.js')).serve(config, log, database)
  await database.close()
  ;(await import('./primary.js')).runPrimary(config, log)
}

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: { help: { type: 'boolean' }, status: { type: 'boolean' } },
  })
  const command = positionals[0] ?? 'serve'
  if (values.help || command === 'help') {
    process.stdout.write(help((await import('./cli.js')).ADMIN_COMMANDS_HELP))
    return
  }
  const config = loadConfig()
  if (command === 'serve') return serve(config)
  if (command === 'migrate') {
    const database = await openDatabase(config)
    if (values.status) {
      const status = formatMigrationStatus(await readMigrationState(database.db))
      await database.close()
      process.stdout.write(status)
      return
    }
    const applied = await migrateToLatest(database.db)
    await database.close()
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n')
    return
  }
  const { printOpenApiDocument, runAdminCommand } = await import('./cli.js')
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
