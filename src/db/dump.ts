import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { Engine } from './index.js'
import { migrations } from './migrations/index.js'

// Whole-database copies for `svc backup`: the one place that knows how each engine is dumped and loaded.

/** Where options point: the PostgreSQL database, or the SQLite file in the data directory. */
export interface DatabaseLocation {
  databaseUrl: string | null
  dataDir: string
}

/** A dump or load that could not be done, said so that an administrator knows what to fix. */
export class DumpError extends Error {}

/** The SQLite file of a data directory (db/index.ts opens the same). */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'svc.sqlite3')
}

export function engineOf(location: DatabaseLocation): Engine {
  return location.databaseUrl ? 'postgres' : 'sqlite'
}

/** The names of the migrations this code knows, oldest first: a schema version is the newest applied. */
export function knownMigrations(): string[] {
  return Object.keys(migrations).sort()
}

/** The URL without its password, which goes to the client tools through PGPASSWORD rather than their command line. */
function clientArguments(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl)
  const password = decodeURIComponent(url.password)
  url.password = ''
  return { url: url.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } }
}

/** Runs a PostgreSQL client tool; a missing tool is a DumpError naming it. */
function runTool(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(new DumpError(`${command} is not installed: backups of a PostgreSQL database need PostgreSQL's client tools in PATH`))
      } else reject(error)
    })
    child.on('close', (code) => {
      if (code === 0) resolve()
      else reject(new DumpError(`${command} failed (exit code ${code}): ${stderr.trim()}`))
    })
  })
}

async function withPostgres<T>(databaseUrl: string, work: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

async function postgresSchemaVersion(databaseUrl: string): Promise<string | null> {
  return withPostgres(databaseUrl, async (client) => {
    const table = await client.query("select to_regclass('kysely_migration') as name")
    if (table.rows[0].name === null) return null
    const newest = await client.query('select max(name) as name from kysely_migration')
    return (newest.rows[0].name as string | null) ?? null
  })
}

function sqliteSchemaVersion(SQLite: typeof import('better-sqlite3'), file: string): string | null {
  const db = new SQLite(file, { readonly: true, fileMustExist: true })
  try {
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get()
    if (!table) return null
    return (db.prepare('select max(name) as name from kysely_migration').get() as { name: string | null }).name
  } finally {
    db.close()
  }
}

/**
 * Writes a consistent copy of the database to `file` while svc keeps serving, and answers its schema version.
 * SQLite: `VACUUM INTO` reads in one transaction, a snapshot that writers in WAL mode never wait for (the online
 * backup API would start over at every write of another process, and under steady writes never finish).
 * PostgreSQL: `pg_dump` in its custom format, which also reads one snapshot.
 */
export async function dumpDatabase(location: DatabaseLocation, file: string): Promise<{ engine: Engine; schemaVersion: string | null }> {
  if (location.databaseUrl) {
    const before = await postgresSchemaVersion(location.databaseUrl)
    const { url, env } = clientArguments(location.databaseUrl)
    await runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${file}`, `--dbname=${url}`], env)
    if ((await postgresSchemaVersion(location.databaseUrl)) !== before)
      throw new DumpError('migrations ran during the backup: run it again')
    return { engine: 'postgres', schemaVersion: before }
  }
  const source = sqliteFile(location.dataDir)
  if (!fs.existsSync(source)) throw new DumpError(`there is no database at ${source}`)
  const { default: SQLite } = await import('better-sqlite3')
  const db = new SQLite(source, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.prepare('vacuum into ?').run(file)
  } finally {
    db.close()
  }
  return { engine: 'sqlite', schemaVersion: sqliteSchemaVersion(SQLite, file) }
}

/** Whether the database holds nothing yet: no SQLite file, or no table in the PostgreSQL database. */
export async function isDatabaseEmpty(location: DatabaseLocation): Promise<boolean> {
  if (!location.databaseUrl) return !fs.existsSync(sqliteFile(location.dataDir))
  return withPostgres(location.databaseUrl, async (client) => {
    const tables = await client.query(
      "select count(*)::int as count from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
    )
    return tables.rows[0].count === 0
  })
}

/** Loads a dump made by dumpDatabase into an empty database of the same engine. */
export async function restoreDatabase(location: DatabaseLocation, file: string): Promise<void> {
  if (location.databaseUrl) {
    const { url, env } = clientArguments(location.databaseUrl)
    await runTool('pg_restore', ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', `--dbname=${url}`, file], env)
    return
  }
  const target = sqliteFile(location.dataDir)
  const partial = `${target}.partial`
  fs.mkdirSync(location.dataDir, { recursive: true })
  fs.copyFileSync(file, partial, fs.constants.COPYFILE_EXCL)
  placeWhenDurable(partial, target)
}

/** Flushes a finished file to disk, then moves it into place in one step, so `target` is never a torn file. */
export function placeWhenDurable(partial: string, target: string): void {
  const handle = fs.openSync(partial, 'r')
  try {
    fs.fsyncSync(handle)
  } finally {
    fs.closeSync(handle)
  }
  fs.renameSync(partial, target)
}
