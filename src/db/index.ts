import fs from 'node:fs'
import path from 'node:path'
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely'
import type pg from 'pg'
import type { Database } from './schema.js'
import { createWriteJournal, journalEntry, ReadCache } from './read-cache.js'
import { WriteWatch } from './writes.js'
import { withRowsOfOneShape } from './rows.js'
import { WalSync } from './durability.js'

export type Db = Kysely<Database>
export type Engine = 'sqlite' | 'postgres'

export interface DatabaseHandle {
  db: Db
  engine: Engine
  /** Every write made through `db`, for caches that must drop what changed. */
  writes: WriteWatch
  /** Tells `writes` of commits made by other connections since this turn of the event loop began (embedded only). */
  noticeForeignCommits(): void
  close(): Promise<void>
}

const PG_TIMESTAMPTZ = 1184
const PG_TIMESTAMP = 1114
const PG_DATE = 1082
const PG_INT8 = 20

function toIsoTimestamp(text: string): string {
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString()
}

// Both engines hand back the same JS values: ISO strings for timestamps, 'YYYY-MM-DD' for dates, numbers for ids and counts.
function pgTypes(types: typeof pg.types) {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_TIMESTAMPTZ || oid === PG_TIMESTAMP) return toIsoTimestamp
      if (oid === PG_DATE) return (text: string) => text
      if (oid === PG_INT8) return (text: string) => Number(text)
      return types.getTypeParser(oid, format as 'text')
    },
  }
}

/**
 * Opens PostgreSQL when `databaseUrl` is given, else the SQLite file in `dataDir`. Only the chosen
 * driver is loaded, which keeps start-up short.
 */
export async function openDatabase(options: { databaseUrl: string | null; dataDir: string }): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const { default: pg } = await import('pg')
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      options: '-c TimeZone=UTC',
      types: pgTypes(pg.types),
    } as pg.PoolConfig)
    // An idle client that loses its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {})
    const writes = new WriteWatch()
    const db = new Kysely<Database>({ dialect: writes.dialect(new PostgresDialect({ pool })) })
    return { db, engine: 'postgres', writes, noticeForeignCommits() {}, close: () => db.destroy() }
  }
  const { default: SQLite } = await import('better-sqlite3')
  fs.mkdirSync(options.dataDir, { recursive: true })
  const file = new SQLite(path.join(options.dataDir, 'svc.sqlite3'))
  file.pragma('journal_mode = WAL')
  // An acknowledged write survives a power cut (DESIGN: reliability rules): commits flush the WAL through walSync,
  // off the event loop, rather than in SQLite's commit (FULL).
  file.pragma('synchronous = NORMAL')
  file.pragma('foreign_keys = ON')
  file.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  const writes = new WriteWatch()
  createWriteJournal(file)
  const cache = new ReadCache(withStatementCache(file), (tables) => writes.emit(tables, true, true))
  const walSync = new WalSync(`${file.name}-wal`)
  const dialect = writes.dialect(new SqliteDialect({ database: file }), {
    reads: () => cache,
    durable: () => walSync.durable(),
    writeLock: (attempt) => withWriteLock(file, attempt),
    journal: (tables) => {
      const { sql, parameters } = journalEntry(tables)
      return CompiledQuery.raw(sql, parameters)
    },
  })
  const db = new Kysely<Database>({ dialect })
  writes.on((tables, _committed, foreign) => tables && !foreign && cache.written(tables))
  sqliteFiles.set(db, { file, cache })
  const close = async () => {
    await db.destroy()
    walSync.close()
  }
  return { db, engine: 'sqlite', writes, noticeForeignCommits: () => cache.noticeForeignCommits(), close }
}

/** How long a statement waits for SQLite's write lock, or a read for a recovering WAL, before failing. */
const BUSY_TIMEOUT_MS = 5000
/** How long a wait for the write lock tries again at every turn of the event loop before it sleeps between tries. */
const LOCK_SPIN_MS = 2

/**
 * Runs `attempt`, a statement that takes the write lock, waiting for the lock without blocking the event loop: SQLite
 * waits for a lock another process holds by sleeping in the calling thread (busy_timeout), which here would stall
 * every request of the process. So the statement is tried with no wait, and tried again after a pause while another
 * process holds the lock, until BUSY_TIMEOUT_MS have passed. `attempt` runs its statement synchronously.
 */
async function withWriteLock<T>(file: SqliteFile, attempt: () => Promise<T>): Promise<T> {
  const started = Date.now()
  const deadline = started + BUSY_TIMEOUT_MS
  for (;;) {
    // Prepared once (file.prepare keeps statements): file.pragma would prepare it anew each time.
    file.prepare('pragma busy_timeout = 0').get()
    let running: Promise<T>
    try {
      running = attempt()
    } catch (error) {
      running = Promise.reject(error)
    } finally {
      file.prepare(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`).get()
    }
    try {
      return await running
    } catch (error) {
      const busy = String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')
      if (!busy || Date.now() >= deadline) throw error
    }
    // Another process's transaction holds the lock for a fraction of a millisecond: try again at the next turn of the
    // loop (other requests are served in between) while that is likely, then every millisecond.
    const waited = Date.now() - started
    await new Promise((resolve) => (waited < LOCK_SPIN_MS ? setImmediate(resolve) : setTimeout(resolve, 1)))
  }
}

const sqliteFiles = new WeakMap<Db, { file: SqliteFile; cache: ReadCache }>()

/**
 * The SQLite connection behind `db` and its read cache, when a statement may run on it directly: `db` is not a
 * transaction and no transaction is open on the connection (whose uncommitted rows a direct read would see).
 */
export function idleSqliteConnection(db: Db): { file: SqliteFile; cache: ReadCache } | null {
  if (db.isTransaction) return null
  const connection = sqliteFiles.get(db)
  return connection && !connection.file.inTransaction ? connection : null
}

/** Prepared statements kept per SQLite connection; the SQL of a query shape never changes. */
const STATEMENT_CACHE_SIZE = 500

type SqliteFile = import('better-sqlite3').Database

/**
 * Kysely prepares every query anew; preparing is the larger part of a simple query's cost on SQLite.
 * Statements are reused by SQL text (least recently used dropped first), and answer rows of one shape (db/rows.ts).
 *
 * Every transaction begins IMMEDIATE (Kysely's driver sends a plain `begin`): several processes may write to the
 * file, and a deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
 * process wrote in between, whatever busy_timeout says. An immediate one takes the write lock at its start,
 * waiting for it (withWriteLock), so transactions of every process run one after the other.
 */
function withStatementCache(file: SqliteFile): SqliteFile {
  const statements = new Map<string, ReturnType<SqliteFile['prepare']>>()
  const prepare = file.prepare.bind(file)
  file.prepare = ((text: string) => {
    const source = text === 'begin' ? 'begin immediate' : text
    let statement = statements.get(source)
    if (statement) {
      statements.delete(source)
    } else {
      statement = withRowsOfOneShape(prepare(source))
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string)
    }
    statements.set(source, statement)
    return statement
  }) as SqliteFile['prepare']
  return file
}

/** True when the database answers a trivial query. */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db)
    return true
  } catch {
    return false
  }
}
