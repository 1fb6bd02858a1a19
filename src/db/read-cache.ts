import type { Database as SqliteFile } from 'better-sqlite3'
import { walCommitWatch } from './wal-index.js'
import { tablesWrittenBy } from './writes.js'

/** Query results kept at most, and rows in all of them; the least recently used go first, so memory stays bounded. */
const MAX_ENTRIES = 2_000
const MAX_KEPT_ROWS = 10_000
/** Larger results are read anew every time. */
const MAX_ROWS = 200
const READ_TABLE = /\b(?:from|join)\s+"(\w+)"/gi

/**
 * For each table, the tables SQLite itself changes when it is written: those whose foreign keys cascade from it
 * (on delete or update: cascade, set null, set default) and those its triggers write. A statement names only its own.
 */
function dependentTables(file: SqliteFile): Map<string, string[]> {
  const dependents = new Map<string, Set<string>>()
  const add = (table: string, dependent: string) => {
    const key = table.toLowerCase()
    dependents.set(key, (dependents.get(key) ?? new Set()).add(dependent.toLowerCase()))
  }
  const tables = (file.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map((t) => t.name)
  for (const table of tables) {
    const keys = file.pragma(`foreign_key_list("${table.replace(/"/g, '""')}")`) as {
      table: string
      on_delete: string
      on_update: string
    }[]
    for (const key of keys) if (key.on_delete !== 'NO ACTION' || key.on_update !== 'NO ACTION') add(key.table, table)
  }
  const triggers = file.prepare("select tbl_name, sql from sqlite_master where type = 'trigger'").all() as {
    tbl_name: string
    sql: string
  }[]
  for (const trigger of triggers) for (const table of tablesWrittenBy(trigger.sql)) add(trigger.tbl_name, table)
  return new Map([...dependents].map(([table, set]) => [table, [...set]]))
}

/**
 * Results of the hot reads on an embedded (SQLite) database, kept until a write could change them. This process's
 * writes drop the results of the tables they touch, as the driver sees them (db/writes.ts); another connection's
 * commit (another worker process, a command) changes SQLite's `data_version`, which is compared before use (once per
 * turn of the event loop), and then the write journal tells which tables to drop. So a kept result is always what the read would answer now.
 * Rows are frozen: they are shared by every request that reads them.
 */
/**
 * SQLite's own bookkeeping table of svc: a count of committed writes per table, raised by every transaction that
 * writes (db/writes.ts `journal`), so that a process noticing another one's commit knows which tables changed.
 */
export const WRITE_JOURNAL = 'svc_write_journal'

export function createWriteJournal(file: SqliteFile) {
  file.exec(`create table if not exists ${WRITE_JOURNAL} (name text primary key, version integer not null) without rowid`)
}

/** The statement that counts one more write of each of these tables. */
export function journalEntry(tables: ReadonlySet<string>): { sql: string; parameters: string[] } {
  const names = [...tables]
  return {
    sql: `insert into ${WRITE_JOURNAL} (name, version) values ${names.map(() => '(?, 1)').join(', ')} on conflict (name) do update set version = version + 1`,
    parameters: names,
  }
}

/** A statement's SQL as the cache knows it: the tables it reads, and its kept results by their values' JSON. */
interface Statement {
  tables: readonly string[]
  results: Map<string, Kept>
}

interface Kept {
  rows: readonly unknown[]
  statement: Statement
  key: string
}

export class ReadCache {
  /** Every kept result, the least recently used first. */
  private readonly recency = new Map<Kept, true>()
  private keptRows = 0
  /**
   * Each statement's tables and kept results (by their values), by its SQL: finding a kept result hashes the values'
   * short JSON, not the whole SQL and the values joined.
   */
  private readonly statements = new Map<string, Statement>()
  private readonly dataVersion: () => number
  /** False when no connection can have committed since the last look: then `data_version` need not be read. */
  private readonly mayHaveCommitted: () => boolean
  private seenVersion: number
  /** Whether `data_version` was read in this turn of the event loop. */
  private checked = false
  private readonly uncheck = () => {
    this.checked = false
  }

  /** Tables a write to a table changes besides it: through cascading foreign keys and triggers (see dependentTables). */
  private dependents = new Map<string, string[]>()
  private dependentsOfSchema = -1

  /** The write journal as last read: each table's count of committed writes (see WRITE_JOURNAL). */
  private seenWrites: Map<string, number>
  private readonly readJournal: () => { name: string; version: number }[]

  constructor(
    private readonly file: SqliteFile,
    /**
     * Told which tables another connection's commits changed (null: any), with those they cascade to: whatever else
     * this process keeps of them may be stale too.
     */
    private readonly onForeignCommit: (tables: ReadonlySet<string> | null) => void,
  ) {
    const statement = file.prepare('pragma data_version')
    this.dataVersion = () => (statement.get() as { data_version: number }).data_version
    this.mayHaveCommitted = walCommitWatch(file.name)
    const journal = file.prepare(`select name, version from ${WRITE_JOURNAL}`)
    this.readJournal = () => journal.all() as { name: string; version: number }[]
    this.seenVersion = this.dataVersion()
    this.seenWrites = new Map(this.readJournal().map((row) => [row.name, row.version]))
  }

  /** The rows `sql` with `values` answers: kept ones, or read with `read` (on an idle connection) and kept. */
  rows<Row>(sql: string, values: readonly unknown[], read: () => Row[]): Row[] {
    this.noticeForeignCommits()
    const statement = this.statementOf(sql)
    const key = JSON.stringify(values)
    return (this.hit(statement, key) as Row[] | null) ?? this.keep(statement, key, read())
  }

  /**
   * The same for a read through Kysely's driver, which runs the statement at once and answers a turn later: the
   * connection is held meanwhile, so no write of this process comes between the read and its keeping.
   */
  async rowsLater<Row>(sql: string, values: readonly unknown[], read: () => Promise<Row[]>): Promise<Row[]> {
    this.noticeForeignCommits()
    const statement = this.statementOf(sql)
    const key = JSON.stringify(values)
    return (this.hit(statement, key) as Row[] | null) ?? this.keep(statement, key, await read())
  }

  private statementOf(sql: string): Statement {
    let statement = this.statements.get(sql)
    if (!statement) {
      const tables = [...new Set([...sql.matchAll(READ_TABLE)].map((match) => match[1].toLowerCase()))]
      statement = { tables, results: new Map() }
      // A statement forgotten here keeps its results only until they are the least recently used.
      if (this.statements.size >= MAX_ENTRIES) this.statements.clear()
      this.statements.set(sql, statement)
    }
    return statement
  }

  private hit(statement: Statement, key: string): unknown[] | null {
    const kept = statement.results.get(key)
    if (!kept) return null
    this.recency.delete(kept)
    this.recency.set(kept, true)
    return kept.rows.slice()
  }

  private keep<Row>(statement: Statement, key: string, rows: Row[]): Row[] {
    if (rows.length <= MAX_ROWS) {
      for (const row of rows) Object.freeze(row)
      while (this.recency.size >= MAX_ENTRIES || (this.recency.size > 0 && this.keptRows + rows.length > MAX_KEPT_ROWS))
        this.drop(this.recency.keys().next().value as Kept)
      // A read through the driver answers a turn later: another may have kept the same result meanwhile.
      const earlier = statement.results.get(key)
      if (earlier) this.drop(earlier)
      const kept: Kept = { rows: rows.slice(), statement, key }
      statement.results.set(key, kept)
      this.recency.set(kept, true)
      this.keptRows += rows.length
    }
    return rows
  }

  private drop(kept: Kept) {
    if (!this.recency.delete(kept)) return
    kept.statement.results.delete(kept.key)
    this.keptRows -= kept.rows.length
  }

  private dropAll() {
    for (const kept of this.recency.keys()) kept.statement.results.delete(kept.key)
    this.recency.clear()
    this.keptRows = 0
  }

  /**
   * Another connection's commits show in `data_version`. Reading it once per turn of the event loop is enough: a
   * request that arrives after such a commit is taken up in a later turn, which reads it again.
   */
  noticeForeignCommits() {
    if (this.checked) return
    this.checked = true
    setImmediate(this.uncheck)
    if (!this.mayHaveCommitted()) return
    const version = this.dataVersion()
    if (version === this.seenVersion) return
    this.seenVersion = version
    // Every writer records the tables it wrote in the journal, in the same transaction: what changed since the last
    // look is what this process drops. That includes this process's own writes since then, dropped once more:
    // counting them apart could not tell, in every order of events, a commit of ours from another's.
    const changed = new Set<string>()
    const seen = new Map<string, number>()
    for (const { name, version: count } of this.readJournal()) {
      seen.set(name, count)
      if (this.seenWrites.get(name) !== count) changed.add(name)
    }
    this.seenWrites = seen
    // A commit that recorded nothing came from a writer that keeps no journal (the sqlite3 shell): anything may have changed.
    if (changed.size === 0) {
      this.dropAll()
      this.onForeignCommit(null)
    } else this.onForeignCommit(this.written(changed))
  }

  /** Drops what reads of these tables, and of the tables they cascade to, answered (called for every write this process makes). */
  written(tables: ReadonlySet<string>): ReadonlySet<string> {
    const changed = this.withDependents(tables)
    for (const kept of this.recency.keys()) if (kept.statement.tables.some((table) => changed.has(table))) this.drop(kept)
    return changed
  }

  private withDependents(tables: ReadonlySet<string>): Set<string> {
    const schema = (this.file.prepare('pragma schema_version').get() as { schema_version: number }).schema_version
    if (schema !== this.dependentsOfSchema) {
      this.dependents = dependentTables(this.file)
      this.dependentsOfSchema = schema
    }
    const changed = new Set(tables)
    const pending = [...tables]
    for (let table = pending.pop(); table !== undefined; table = pending.pop()) {
      for (const dependent of this.dependents.get(table) ?? []) {
        if (!changed.has(dependent)) pending.push(dependent)
        changed.add(dependent)
      }
    }
    return changed
  }
}
