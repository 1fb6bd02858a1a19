import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { buildApp } from './app.js'
import { buildContext } from './build-context.js'
import type { Config } from './config/index.js'
import type { Context, Log } from './core/context.js'
import { DomainError, Invalid } from './core/errors.js'
import { openDatabase } from './db/index.js'
import { migrateToLatest } from './db/migrate.js'
import { SettingsCache } from './features/settings/cache.js'
import { ensureRootUser } from './features/users/bootstrap.js'
import { createUser, findUserByIdOrUsername } from './features/users/index.js'
import { ensureRootToken, issuePersonalAccessToken } from './features/tokens/index.js'
import { InstanceMemo } from './core/instance-memo.js'

export const ADMIN_COMMANDS_HELP = `  create-user    Create a user (--username, --email, --name, [--password], [--admin])
  create-token   Create a personal access token (--user, --scopes a,b, [--name], [--expires-at YYYY-MM-DD])`

/** A refusal the command reports as one line on stderr; 2 means the command line itself was wrong. */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}

/** Commands write nothing but their result: diagnostics would mix with it on stdout. */
const quietLog: Log = { info() {}, warn() {}, error() {}, debug() {} }

/** A Context acting as root, the administrator every instance has, over a migrated database. */
async function withAdminContext<T>(config: Config, work: (ctx: Context) => Promise<T>): Promise<T> {
  const database = await openDatabase(config)
  try {
    await migrateToLatest(database.db)
    const root = await ensureRootUser(database.db, config, quietLog)
    await ensureRootToken(database.db, root, config.rootToken)
    const parts = {
      db: database.db,
      config,
      settings: new SettingsCache(database.db),
      clock: () => new Date(),
      log: quietLog,
      memo: new InstanceMemo(),
    }
    return await work(await buildContext(parts, { user: root, credential: null, sudoFrom: null }))
  } finally {
    await database.close()
  }
}

/** A domain error as the one line an administrator reads, e.g. `username: admin is a reserved name`. */
function describeError(error: DomainError): string {
  if (error instanceof Invalid) {
    return Object.entries(error.errors)
      .map(([attribute, messages]) => `${attribute}: ${messages.join(', ')}`)
      .join('; ')
  }
  return error.message
}

function requiredOption(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new CommandError(`--${name} is required`, 2)
  return value
}

async function createUserCommand(args: string[], config: Config) {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean' },
    },
  })
  const username = requiredOption(values, 'username')
  const email = requiredOption(values, 'email')
  const name = requiredOption(values, 'name')
  // Without --password the user gets a random one, shown once.
  const password = values.password ?? randomBytes(18).toString('base64url')
  const user = await withAdminContext(config, async (ctx) => {
    try {
      const created = await createUser(ctx, { username, email, name, password, admin: values.admin === true, skipConfirmation: true })
      return created.result
    } catch (error) {
      if (error instanceof DomainError) throw new CommandError(describeError(error))
      throw error
    }
  })
  process.stdout.write(`Created user ${user.username} (id ${user.id})${user.admin === 1 ? ' as an administrator' : ''}\n`)
  if (values.password === undefined) process.stdout.write(`Password: ${password}\n`)
}

function isCalendarDate(text: string): boolean {
  const parsed = new Date(`${text}T00:00:00.000Z`)
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(text)
}

/** Prints the new token alone on stdout, so that scripts can capture it. */
async function createTokenCommand(args: string[], config: Config) {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { user: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, 'expires-at': { type: 'string' } },
  })
  const userRef = requiredOption(values, 'user')
  const scopes = requiredOption(values, 'scopes')
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope !== '')
  const expiresAt = values['expires-at']
  if (expiresAt !== undefined && !isCalendarDate(expiresAt)) {
    throw new CommandError('--expires-at must be a date, YYYY-MM-DD', 2)
  }
  const token = await withAdminContext(config, async (ctx) => {
    const user = await findUserByIdOrUsername(ctx.db, userRef)
    if (!user) throw new CommandError(`no user with id or username ${userRef}`)
    try {
      const name = values.name ?? 'svc create-token'
      return (await issuePersonalAccessToken(ctx.db, ctx.settings, ctx.now(), user, { name, scopes, expiresAt })).token
    } catch (error) {
      if (error instanceof DomainError) throw new CommandError(describeError(error))
      throw error
    }
  })
  process.stdout.write(`${token}\n`)
}

/** Runs an administrative command; false when `command` is not one. */
export async function runAdminCommand(command: string, args: string[], config: Config): Promise<boolean> {
  try {
    switch (command) {
      case 'create-user':
        await createUserCommand(args, config)
        return true
      case 'create-token':
        await createTokenCommand(args, config)
        return true
      default:
        return false
    }
  } catch (error) {
    if (error instanceof CommandError) {
      process.stderr.write(`svc ${command}: ${error.message}\n`)
      process.exitCode = error.exitCode
      return true
    }
    // parseArgs reports unknown or malformed options with a readable message.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`svc ${command}: ${(error as Error).message}\n`)
      process.exitCode = 2
      return true
    }
    throw error
  }
}

/**
 * Prints the OpenAPI document that `/api/v4/openapi.json` serves. The routes need a database to be built over but the
 * document reads nothing from it, so the app is built over a scratch SQLite file and the configured one is left alone.
 */
export async function printOpenApiDocument(config: Config) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-'))
  try {
    const scratch: Config = { ...config, databaseUrl: null, redisUrl: null, dataDir, logLevel: 'silent' }
    const database = await openDatabase(scratch)
    try {
      const app = await buildApp({ config: scratch, database, redis: null })
      const document = app.openapi()
      await app.close()
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`)
    } finally {
      await database.close()
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
