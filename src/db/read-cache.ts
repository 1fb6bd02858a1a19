import type { Database as SqliteFile } from 'better-sqlite3'

/** Query results kept at most; the least recently used goes first. */
const MAX_ENTRIES = 2_000
/** Larger results are read anew every time, so memory stays bounded. */
const MAX_ROWS = 200
const READ_TABLE = /\b(?:from|join)\s+"(\w+)"/gi

/**
 * Results of the hot reads on an embedded (SQLite) database, kept until a write could change them. This process's
 * writes drop the results of the tables they touch, as the driver sees them (db/writes.ts); another connection's
 * commit (another worker process, a command) changes SQLite's `data_version`, which is compared before use (once per
 * turn of the event loop) and then drops everything. So a kept result is always what the read would answer now.
 * Rows are frozen: they are shared by every request that reads them.
 */
export class ReadCache {
  private readonly entries = new Map<string, { rows: readonly unknown[]; tables: readonly string[] }>()
  private readonly tablesBySql = new Map<string, readonly string[]>()
  private readonly dataVersion: () => number
  private seenVersion: number
  /** Whether `data_version` was read in this turn of the event loop. */
  private checked = false
  private readonly uncheck = () => {
    this.checked = false
  }

  constructor(
    file: SqliteFile,
    /** Told when another connection's commit is noticed: whatever else this process keeps may be stale too. */
    private readonly onForeignCommit: () => void,
  ) {
    const statement = file.prepare('pragma data_version').pluck()
    this.dataVersion = () => statement.get() as number
    this.seenVersion = this.dataVersion()
  }

  /** The rows `sql` with `values` answers: kept ones, or read with `read` (on an idle connection) and kept. */
  rows<Row>(sql: string, values: readonly unknown[], read: () => Row[]): Row[] {
    const key = this.keyOf(sql, values)
    return (this.hit(key) as Row[] | null) ?? this.keep(key, sql, read())
  }

  /**
   * The same for a read through Kysely's driver, which runs the statement at once and answers a turn later: the
   * connection is held meanwhile, so no write of this process comes between the read and its keeping.
   */
  async rowsLater<Row>(sql: string, values: readonly unknown[], read: () => Promise<Row[]>): Promise<Row[]> {
    const key = this.keyOf(sql, values)
    return (this.hit(key) as Row[] | null) ?? this.keep(key, sql, await read())
  }

  private keyOf(sql: string, values: readonly unknown[]) {
    this.noticeForeignCommits()
    return `${sql}\u0000${JSON.stringify(values)}`
  }

  private hit(key: string): unknown[] | null {
    const hit = this.entries.get(key)
    if (!hit) return null
    // Most recently used last: the first key is the one to drop.
    this.entries.delete(key)
    this.entries.set(key, hit)
    return hit.rows.slice()
  }

  private keep<Row>(key: string, sql: string, rows: Row[]): Row[] {
    if (rows.length <= MAX_ROWS) {
      for (const row of rows) Object.freeze(row)
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string)
      this.entries.set(key, { rows: rows.slice(), tables: this.tablesOf(sql) })
    }
    return rows
  }

  /**
   * Another connection's commits show in `data_version`. Reading it once per turn of the event loop is enough: a
   * request that arrives after such a commit is taken up in a later turn, which reads it again.
   */
  noticeForeignCommits() {
    if (this.checked) return
    this.checked = true
    setImmediate(this.uncheck)
    const version = this.dataVersion()
    if (version === this.seenVersion) return
    this.seenVersion = version
    this.entries.clear()
    this.onForeignCommit()
  }

  /** Drops what reads of these tables answered (called for every write this process makes). */
  written(tables: ReadonlySet<string>) {
    for (const [key, entry] of this.entries) if (entry.tables.some((table) => tables.has(table))) this.entries.delete(key)
  }

  private tablesOf(sql: string): readonly string[] {
    let tables = this.tablesBySql.get(sql)
    if (!tables) {
      tables = [...new Set([...sql.matchAll(READ_TABLE)].map((match) => match[1].toLowerCase()))]
      if (this.tablesBySql.size >= MAX_ENTRIES) this.tablesBySql.clear()
      this.tablesBySql.set(sql, tables)
    }
    return tables
  }
}
