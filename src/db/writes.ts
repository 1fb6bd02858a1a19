import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely'
import type { ReadCache } from './read-cache.js'

/**
 * Hears which tables a statement wrote: once as the statement runs (`committed` false: the change may still be
 * rolled back, but whoever caches must stop storing what it reads now) and once the change is committed. `tables` is
 * null when another connection (another process) committed something: any table may have changed.
 */
export type WriteListener = (tables: ReadonlySet<string> | null, committed: boolean, foreign?: boolean) => void

// Not the `set` of an upsert's `do update set`, nor the `on` of a trigger's `after update on`: those name no table.
const WRITTEN_TABLE = /\b(?:insert\s+into|update|delete\s+from)\s+(?!(?:set|on|of)\b)"?(\w+)"?/gi

/** The tables SQL text writes (a statement, or a trigger's body), lower-cased; none for a select, `begin`, a pragma. */
export function tablesWrittenBy(sql: string): Set<string> {
  return new Set([...sql.matchAll(WRITTEN_TABLE)].map((match) => match[1].toLowerCase()))
}

/** The tables a statement writes, or null when it writes none. */
function writtenTables(query: CompiledQuery): Set<string> | null {
  if (query.query.kind === 'SelectQueryNode') return null
  const tables = tablesWrittenBy(query.sql)
  return tables.size > 0 ? tables : null
}

/**
 * Watches the writes made through one database handle, at the driver, so that no code path can change a table
 * without its watchers knowing: caches of this process drop what a change touched the moment it is committed.
 */
export class WriteWatch {
  private readonly listeners: WriteListener[] = []

  on(listener: WriteListener) {
    this.listeners.push(listener)
  }

  /** `foreign`: another process committed these, and has told its own listeners. */
  emit(tables: ReadonlySet<string> | null, committed: boolean, foreign = false) {
    for (const listener of this.listeners) listener(tables, committed, foreign)
  }

  /**
   * `dialect` with its connections watched. With `reads`, reads outside transactions are kept there; with `durable`,
   * a write is answered only once it resolves (db/durability.ts), the connection being free for others meanwhile.
   */
  dialect(dialect: Dialect, hooks: DriverHooks = {}): Dialect {
    return {
      createDriver: () => new WatchedDriver(dialect.createDriver(), this, hooks),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    }
  }
}

interface DriverHooks {
  reads?: () => ReadCache
  durable?: () => Promise<void>
  /** Runs a statement that takes the write lock (`begin`, a write outside a transaction), waiting for the lock. */
  writeLock?: <T>(attempt: () => Promise<T>) => Promise<T>
  /** A statement that records, in the committing transaction, which tables it wrote (for other processes). */
  journal?: (tables: ReadonlySet<string>) => CompiledQuery
}

const BEGIN = CompiledQuery.raw('begin')
const COMMIT = CompiledQuery.raw('commit')
const ROLLBACK = CompiledQuery.raw('rollback')

class WatchedConnection implements DatabaseConnection {
  /** Tables written in the open transaction; null outside one. */
  written: Set<string> | null = null
  /** A write was committed since the connection was acquired: its release waits until it is durable. */
  committed = false

  constructor(
    readonly inner: DatabaseConnection,
    private readonly watch: WriteWatch,
    private readonly hooks: DriverHooks,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const tables = writtenTables(query)
    if (!tables) {
      const cache = query.query.kind === 'SelectQueryNode' && this.written === null ? this.hooks.reads?.() : undefined
      if (!cache) return this.inner.executeQuery<R>(query)
      return { rows: await cache.rowsLater(query.sql, query.parameters, async () => (await this.inner.executeQuery<R>(query)).rows) }
    }
    this.watch.emit(tables, false)
    const result = this.written === null ? await this.writeAlone<R>(query, tables) : await this.inner.executeQuery<R>(query)
    if (this.written) for (const table of tables) this.written.add(table)
    else {
      this.committed = true
      this.watch.emit(tables, true)
    }
    return result
  }

  /** A write outside a transaction; with a journal, in a transaction of its own with the journal's record. */
  private async writeAlone<R>(query: CompiledQuery, tables: ReadonlySet<string>): Promise<QueryResult<R>> {
    const { writeLock, journal } = this.hooks
    const locked = <T>(attempt: () => Promise<T>) => (writeLock ? writeLock(attempt) : attempt())
    if (!journal) return locked(() => this.inner.executeQuery<R>(query))
    await locked(() => this.inner.executeQuery(BEGIN))
    try {
      const result = await this.inner.executeQuery<R>(query)
      await this.inner.executeQuery(journal(tables))
      await this.inner.executeQuery(COMMIT)
      return result
    } catch (error) {
      await this.inner.executeQuery(ROLLBACK).catch(() => undefined)
      throw error
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}

class WatchedDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, WatchedConnection>()

  constructor(
    private readonly inner: Driver,
    private readonly watch: WriteWatch,
    private readonly hooks: DriverHooks,
  ) {}

  init() {
    return this.inner.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection()
    let watched = this.connections.get(connection)
    if (!watched) {
      watched = new WatchedConnection(connection, this.watch, this.hooks)
      this.connections.set(connection, watched)
    }
    return watched
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const watched = connection as WatchedConnection
    const begin = () => this.inner.beginTransaction(watched.inner, settings)
    await (this.hooks.writeLock ? this.hooks.writeLock(begin) : begin())
    watched.written = new Set()
  }

  async commitTransaction(connection: DatabaseConnection) {
    const watched = connection as WatchedConnection
    const written = watched.written
    watched.written = null
    if (written && written.size > 0 && this.hooks.journal) await watched.inner.executeQuery(this.hooks.journal(written))
    await this.inner.commitTransaction(watched.inner)
    if (written && written.size > 0) {
      watched.committed = true
      this.watch.emit(written, true)
    }
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    const watched = connection as WatchedConnection
    watched.written = null
    await this.inner.rollbackTransaction(watched.inner)
  }

  async releaseConnection(connection: DatabaseConnection) {
    const watched = connection as WatchedConnection
    const committed = watched.committed
    watched.committed = false
    await this.inner.releaseConnection(watched.inner)
    if (committed && this.hooks.durable) await this.hooks.durable()
  }

  destroy() {
    return this.inner.destroy()
  }
}
