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
import { createUser, findUserByIdOrUsername, findUserByUsername } from './features/users/index.js'
import { setPasswordFromCommandLine, unlockAccount } from './features/sessions/index.js'
import { toSentence } from './core/sentence.js'
import { ensureRootToken, issuePersonalAccessToken } from './features/tokens/index.js'
import { InstanceMemo } from './core/instance-memo.js'

export const ADMIN_COMMANDS_HELP = `  create-user    Create a user (--username, --email, --name, [--password], [--admin])
  create-token   Create a personal access token (--user, --scopes a,b, [--name], [--expires-at YYYY-MM-DD])
  user reset-password <username>
                 Set a user's password, asked twice (or read from standard input: the password, then
                 optionally its confirmation, one a line); the user's sessions end
  user unlock <username>
                 Unlock an account locked after too many failed sign-ins
  backup create [--to FILE]
                 Back up the database and every repository to one tar archive while svc serves
                 (default <data dir>/backups/<timestamp>_<version>_svc_backup.tar)
  backup restore FILE
                 Restore a backup into an empty data directory, empty storages and an empty database
  database copy --to postgres://…
                 Copy a stopped instance's SQLite database into an empty PostgreSQL database`

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

/**
 * Lines typed at the terminal, one for each question, without echoing them (GL Gitlab::TaskHelpers.prompt_for_password).
 * The terminal is raw (no echo) before a question shows; what was typed ahead answers the next question.
 */
function promptHidden(questions: string[]): Promise<string[]> {
  const input = process.stdin
  const answers: string[] = []
  let typed = ''
  input.setRawMode(true)
  input.setEncoding('utf8')
  process.stdout.write(questions[0])
  return new Promise((resolve, reject) => {
    const finish = (error: Error | null) => {
      input.setRawMode(false)
      input.off('data', onData)
      input.pause()
      if (error) reject(error)
      else resolve(answers)
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          answers.push(typed)
          typed = ''
          process.stdout.write('\n')
          if (answers.length === questions.length) return finish(null)
          process.stdout.write(questions[answers.length])
        } else if (char === '\u0003') {
          process.stdout.write('\n')
          return finish(new CommandError('interrupted', 130))
        } else if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('')
        else if (char >= ' ') typed += char
      }
    }
    input.on('data', onData)
    input.resume()
  })
}

/** Standard input whole, when it is not a terminal: a script's answers. */
async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** The full messages of a refusal as one sentence: "Password is too short (minimum is 8 characters)". */
function fullMessages(error: DomainError): string {
  if (!(error instanceof Invalid)) return error.message
  const label = (attribute: string) => attribute.charAt(0).toUpperCase() + attribute.slice(1).replace(/_/g, ' ')
  return toSentence(Object.entries(error.errors).flatMap(([attribute, messages]) => messages.map((text) => `${label(attribute)} ${text}`)))
}

/**
 * `svc user reset-password <username>` (GL gitlab:password:reset): the new password twice at a terminal, else from
 * standard input; GitLab's answers. `svc user unlock <username>` lifts a lock at once, as the unlock link does.
 */
async function userCommand(args: string[], config: Config) {
  const { positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: {} })
  const [action, username, ...extra] = positionals
  if ((action !== 'reset-password' && action !== 'unlock') || extra.length > 0) {
    throw new CommandError('expected reset-password <username> or unlock <username>', 2)
  }
  if (!username) throw new CommandError('Username can not be empty.')
  await withAdminContext(config, async (ctx) => {
    const user = await findUserByUsername(ctx.db, username)
    if (!user) throw new CommandError(`Unable to find user with username ${username}.`)
    if (action === 'unlock') {
      if (user.locked_at === null) {
        process.stdout.write(`The account of the user with username ${username} is not locked.\n`)
        return
      }
      await unlockAccount(ctx, user)
      process.stdout.write(`Unlocked the account of the user with username ${username}.\n`)
      return
    }
    // From a script: the password, then its confirmation when given, one a line.
    const [password, passwordConfirmation] = process.stdin.isTTY
      ? await promptHidden(['Enter password: ', 'Confirm password: '])
      : (await readStandardInput()).split(/\r?\n/).map((line, n, lines) => (n === 1 && line === '' ? lines[0] : line))
    try {
      await setPasswordFromCommandLine(ctx, user, { password, passwordConfirmation: passwordConfirmation ?? password })
    } catch (error) {
      if (error instanceof DomainError) {
        throw new CommandError(`Unable to change password of the user with username ${username}.\n${fullMessages(error)}`)
      }
      throw error
    }
    process.stdout.write(`Password successfully updated for user with username ${username}.\n`)
  })
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
      case 'user':
        await userCommand(args, config)
        return true
      case 'backup':
        await (await import('./features/backup/index.js')).runBackupCommand(args, config)
        return true
      case 'database':
        await (await import('./db/copy.js')).runDatabaseCommand(args, config)
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
