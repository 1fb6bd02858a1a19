import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import type pg from 'pg'
import type { Config } from '../config/index.js'
import { openDatabase } from './index.js'
import { knownMigrationNames, migrateToLatest } from './migrate.js'
import { WRITE_JOURNAL } from './read-cache.js'

// `svc database copy --to postgres://…`: a stopped embedded instance's SQLite database into an empty PostgreSQL one.

/** A copy that cannot start or go on, said so that an administrator knows what to do. */
export class CopyRefused extends Error {}

class UsageError extends Error {}

/** Tables of the migrator, which the target gets by migrating, and SQLite's own bookkeeping. */
const NOT_COPIED = new Set(['kysely_migration', 'kysely_migration_lock', WRITE_JOURNAL])

/** Rows in one INSERT: PostgreSQL takes at most 65,535 parameters a statement. */
const MAX_ROWS_A_BATCH = 1000
const MAX_PARAMETERS = 65_535

type SqliteFile = import('better-sqlite3').Database
type Row = Record<string, unknown>

interface TargetColumn {
  name: string
  dataType: string
  hasSequence: boolean
}

interface TargetTable {
  name: string
  columns: TargetColumn[]
  /** Tables whose rows this table's foreign keys reference (itself excluded). */
  references: Set<string>
  /** Columns referencing this same table: a row must come after the row it names. */
  selfReferences: { column: string; referenced: string }[]
  hasUserTriggers: boolean
}

export interface CopySummary {
  tables: number
  rows: number
  seconds: number
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** The URL as it may be printed: without its password. */
export function withoutPassword(databaseUrl: string): string {
  const url = new URL(databaseUrl)
  if (url.password) url.password = '***'
  return url.toString()
}

/**
 * Opens the SQLite file for reading and takes its lock for good (exclusive locking mode): a running svc holds the
 * file open, so the lock is refused then; and no svc can start on it while the copy reads.
 */
async function openSourceExclusively(file: string): Promise<SqliteFile> {
  const { default: SQLite } = await import('better-sqlite3')
  const source = new SQLite(file, { fileMustExist: true })
  try {
    source.pragma('busy_timeout = 0')
    source.pragma('locking_mode = exclusive')
    source.exec('begin exclusive')
  } catch (error) {
    source.close()
    if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) {
      throw new CopyRefused(`the SQLite database ${file} is in use: stop svc (every process using this data directory) and try again`)
    }
    throw error
  }
  return source
}

function ensureSourceAtLatestMigration(source: SqliteFile, file: string): void {
  const hasTable = source
    .prepare("select count(*) as count from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .get() as {
    count: number
  }
  const applied =
    hasTable.count > 0
      ? (source.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((row) => row.name)
      : []
  const known = knownMigrationNames()
  const newestKnown = known[known.length - 1]
  const newestApplied = applied[applied.length - 1] ?? 'none'
  const unknown = applied.filter((name) => !known.includes(name))
  if (unknown.length > 0) {
    throw new CopyRefused(
      `the SQLite database ${file} was migrated by a newer svc (its newest migration is ${newestApplied}, the newest this version knows is ${newestKnown}): copy it with that version`,
    )
  }
  const pending = known.filter((name) => !applied.includes(name))
  if (pending.length > 0) {
    throw new CopyRefused(
      `the SQLite database ${file} is not at the latest migration (its newest is ${newestApplied}, this version's is ${newestKnown}; ${pending.length} pending): run svc migrate on it first`,
    )
  }
}

function sourceTables(source: SqliteFile): Map<string, Set<string>> {
  const names = source.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as {
    name: string
  }[]
  const tables = new Map<string, Set<string>>()
  for (const { name } of names) {
    if (NOT_COPIED.has(name)) continue
    const columns = source.prepare(`select name from pragma_table_info(?)`).all(name) as { name: string }[]
    tables.set(name, new Set(columns.map((column) => column.name)))
  }
  return tables
}

async function ensureTargetEmpty(client: pg.Client, url: string): Promise<void> {
  const { rows } = await client.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = current_schema() order by table_name`,
  )
  if (rows.length === 0) return
  const names = rows.map((row) => row.table_name)
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')}, …` : names.join(', ')
  throw new CopyRefused(
    `the target database ${url} is not empty: it has ${names.length} tables (${shown}); copy into a new, empty database`,
  )
}

/** The migrated target's tables as its catalog describes them. */
async function readTargetTables(client: pg.Client): Promise<Map<string, TargetTable>> {
  const tables = new Map<string, TargetTable>()
  const columns = await client.query<{ table_name: string; column_name: string; data_type: string; has_sequence: boolean }>(
    `select c.table_name, c.column_name, c.data_type,
            (c.is_identity = 'YES' or coalesce(c.column_default, '') like 'nextval(%') as has_sequence
       from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.is_generated = 'NEVER'
      order by c.table_name, c.ordinal_position`,
  )
  for (const row of columns.rows) {
    if (NOT_COPIED.has(row.table_name)) continue
    let table = tables.get(row.table_name)
    if (!table) {
      table = { name: row.table_name, columns: [], references: new Set(), selfReferences: [], hasUserTriggers: false }
      tables.set(row.table_name, table)
    }
    table.columns.push({ name: row.column_name, dataType: row.data_type, hasSequence: row.has_sequence })
  }
  const keys = await client.query<{ child: string; parent: string; columns: string[]; referenced: string[] }>(
    `select con.conrelid::regclass::text as child, con.confrelid::regclass::text as parent,
            array(select attname::text from unnest(con.conkey) with ordinality k(n, i)
                    join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.i) as columns,
            array(select attname::text from unnest(con.confkey) with ordinality k(n, i)
                    join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.i) as referenced
       from pg_constraint con
       join pg_namespace ns on ns.oid = con.connamespace
      where con.contype = 'f' and ns.nspname = current_schema()`,
  )
  for (const key of keys.rows) {
    const table = tables.get(key.child)
    if (!table) continue
    if (key.child !== key.parent) table.references.add(key.parent)
    else if (key.columns.length === 1) table.selfReferences.push({ column: key.columns[0], referenced: key.referenced[0] })
    else throw new CopyRefused(`${key.child} has a foreign key on several columns into itself, which the copy cannot order`)
  }
  const triggers = await client.query<{ table_name: string }>(
    `select distinct c.relname as table_name from pg_trigger t join pg_class c on c.oid = t.tgrelid
       join pg_namespace ns on ns.oid = c.relnamespace
      where not t.tgisinternal and ns.nspname = current_schema()`,
  )
  for (const row of triggers.rows) {
    const table = tables.get(row.table_name)
    if (table) table.hasUserTriggers = true
  }
  return tables
}

/** Tables ordered so that every table comes after those its foreign keys reference. */
function inDependencyOrder(tables: Map<string, TargetTable>): TargetTable[] {
  const ordered: TargetTable[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (table: TargetTable, path: string[]) => {
    const seen = state.get(table.name)
    if (seen === 'done') return
    if (seen === 'visiting')
      throw new CopyRefused(`foreign keys form a cycle (${[...path, table.name].join(' → ')}), which the copy cannot order`)
    state.set(table.name, 'visiting')
    for (const name of [...table.references].sort()) {
      const referenced = tables.get(name)
      if (referenced) visit(referenced, [...path, table.name])
    }
    state.set(table.name, 'done')
    ordered.push(table)
  }
  for (const name of [...tables.keys()].sort()) visit(tables.get(name)!, [])
  return ordered
}

/** The target and source must hold the same tables and columns, else rows would be lost or refused. */
function ensureSameTables(source: Map<string, Set<string>>, target: Map<string, TargetTable>): void {
  const problems: string[] = []
  for (const name of source.keys()) if (!target.has(name)) problems.push(`table ${name} is missing from the target`)
  for (const [name, table] of target) {
    const columns = source.get(name)
    if (!columns) {
      problems.push(`table ${name} is missing from the SQLite database`)
      continue
    }
    const targetColumns = new Set(table.columns.map((column) => column.name))
    for (const column of targetColumns) if (!columns.has(column)) problems.push(`${name}.${column} is missing from the SQLite database`)
    for (const column of columns) if (!targetColumns.has(column)) problems.push(`${name}.${column} is missing from the target`)
  }
  if (problems.length > 0) throw new CopyRefused(`the two schemas differ: ${problems.join('; ')}`)
}

/**
 * A SQLite value as the target column takes it. Most pass as they are (PostgreSQL reads ISO 8601 text as timestamptz
 * and JSON text as json); flags are 0/1 integers on both, except a real boolean column.
 */
function converter(column: TargetColumn): (value: unknown) => unknown {
  switch (column.dataType) {
    case 'boolean':
      return (value) => (value === null ? null : value === 1 || value === '1' || value === true || value === 'true')
    case 'json':
    case 'jsonb':
      return (value) => (value === null || typeof value === 'string' ? value : JSON.stringify(value))
    case 'bigint':
    case 'integer':
    case 'smallint':
      return (value) => (typeof value === 'bigint' ? value.toString() : value)
    default:
      return (value) => value
  }
}

/** Rows of a table that references itself, each after the row it names (a subgroup after its parent group). */
function parentsFirst(rows: Row[], references: { column: string; referenced: string }[]): Row[] {
  const ordered: Row[] = []
  const placed = references.map(() => new Set<unknown>())
  let waiting = rows
  while (waiting.length > 0) {
    const next: Row[] = []
    for (const row of waiting) {
      const ready = references.every(
        ({ column }, i) => row[column] === null || placed[i].has(row[column]) || row[column] === row[references[i].referenced],
      )
      if (!ready) {
        next.push(row)
        continue
      }
      ordered.push(row)
      references.forEach(({ referenced }, i) => placed[i].add(row[referenced]))
    }
    // Rows naming a row that does not exist: left for PostgreSQL to refuse with the constraint's name.
    if (next.length === waiting.length) return [...ordered, ...next]
    waiting = next
  }
  return ordered
}

async function insertBatch(client: pg.Client, table: TargetTable, converters: ((value: unknown) => unknown)[], rows: Row[]) {
  const parameters: unknown[] = []
  const tuples = rows.map((row) => {
    const placeholders = table.columns.map((column, i) => {
      parameters.push(converters[i](row[column.name] ?? null))
      return `$${parameters.length}`
    })
    return `(${placeholders.join(', ')})`
  })
  const columns = table.columns.map((column) => quote(column.name)).join(', ')
  await client.query(`insert into ${quote(table.name)} (${columns}) values ${tuples.join(', ')}`, parameters)
}

async function copyTable(source: SqliteFile, client: pg.Client, table: TargetTable): Promise<number> {
  const converters = table.columns.map(converter)
  const batchSize = Math.max(1, Math.min(MAX_ROWS_A_BATCH, Math.floor(MAX_PARAMETERS / table.columns.length)))
  const columns = table.columns.map((column) => quote(column.name)).join(', ')
  const hasId = table.columns.some((column) => column.name === 'id')
  const select = source.prepare(`select ${columns} from ${quote(table.name)}${hasId ? ' order by id' : ''}`)
  const rows: Iterable<Row> =
    table.selfReferences.length > 0 ? parentsFirst(select.all() as Row[], table.selfReferences) : (select.iterate() as Iterable<Row>)
  let copied = 0
  let batch: Row[] = []
  for (const row of rows) {
    batch.push(row)
    if (batch.length === batchSize) {
      await insertBatch(client, table, converters, batch)
      copied += batch.length
      batch = []
    }
  }
  if (batch.length > 0) await insertBatch(client, table, converters, batch)
  return copied + batch.length
}

/** Every sequence past the largest value copied, so that new rows get new ids. */
async function advanceSequences(client: pg.Client, table: TargetTable): Promise<void> {
  for (const column of table.columns.filter((c) => c.hasSequence)) {
    await client.query(
      `select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quote(column.name)}) from ${quote(table.name)}), 0) + 1, false)`,
      [quote(table.name), column.name],
    )
  }
}

/**
 * Copies the SQLite database of `dataDir` into the empty PostgreSQL database at `targetUrl`: migrates the target, then
 * copies every table's rows in one transaction, in foreign-key order, with the target's triggers off (the copied
 * counters are already right), and moves every sequence past the largest id. `report` hears a line per table.
 */
export async function copySqliteToPostgres(dataDir: string, targetUrl: string, report: (line: string) => void): Promise<CopySummary> {
  const started = Date.now()
  const file = path.join(dataDir, 'svc.sqlite3')
  const shownUrl = withoutPassword(targetUrl)
  if (!fs.existsSync(file)) throw new CopyRefused(`there is no SQLite database at ${file} (SVC_DATA_DIR)`)
  const source = await openSourceExclusively(file)
  try {
    ensureSourceAtLatestMigration(source, file)
    const { default: pgModule } = await import('pg')
    const client = new pgModule.Client({ connectionString: targetUrl, options: '-c TimeZone=UTC' })
    try {
      await client.connect()
    } catch (error) {
      throw new CopyRefused(`cannot connect to the target database ${shownUrl}: ${(error as Error).message}`)
    }
    try {
      await ensureTargetEmpty(client, shownUrl)
      report(`Migrating ${shownUrl}`)
      const target = await openDatabase({ databaseUrl: targetUrl, dataDir })
      try {
        await migrateToLatest(target.db)
      } finally {
        await target.close()
      }
      const tables = await readTargetTables(client)
      ensureSameTables(sourceTables(source), tables)
      const ordered = inDependencyOrder(tables)
      let rows = 0
      await client.query('begin')
      try {
        for (const table of ordered) if (table.hasUserTriggers) await client.query(`alter table ${quote(table.name)} disable trigger user`)
        // Rows some migrations seed (such as the webhook sender's single row) come from the source like the rest.
        await client.query(`truncate table ${ordered.map((table) => quote(table.name)).join(', ')}`)
        for (const table of ordered) {
          const copied = await copyTable(source, client, table)
          await advanceSequences(client, table)
          rows += copied
          report(`${table.name}: ${copied} ${copied === 1 ? 'row' : 'rows'}`)
        }
        for (const table of ordered) if (table.hasUserTriggers) await client.query(`alter table ${quote(table.name)} enable trigger user`)
        await client.query('commit')
      } catch (error) {
        await client.query('rollback').catch(() => {})
        throw new CopyRefused(
          `the copy failed and was rolled back: ${(error as Error).message}. The target is left migrated but without rows: drop it, create it again empty and run the copy again`,
        )
      }
      return { tables: ordered.length, rows, seconds: (Date.now() - started) / 1000 }
    } finally {
      await client.end()
    }
  } finally {
    source.close()
  }
}

/** `svc database copy --to postgres://…`. Reports a failure as one line on stderr: 2 for a wrong command line, else 1. */
export async function runDatabaseCommand(args: string[], config: Config): Promise<void> {
  try {
    const [action, ...rest] = args
    if (action !== 'copy') throw new UsageError('expected copy --to postgres://…')
    const { values, positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: { to: { type: 'string' } } })
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`)
    const to = values.to
    if (!to || !/^postgres(ql)?:\/\//.test(to)) throw new UsageError('--to must be a postgres:// URL of an empty database')
    if (config.databaseUrl) {
      throw new CopyRefused(
        'SVC_DATABASE_URL is set: this instance keeps its data in PostgreSQL already; unset it to copy the SQLite database of SVC_DATA_DIR',
      )
    }
    const summary = await copySqliteToPostgres(config.dataDir, to, (line) => process.stdout.write(`${line}\n`))
    process.stdout.write(
      `Copied ${summary.rows} rows of ${summary.tables} tables to ${withoutPassword(to)} in ${summary.seconds.toFixed(1)} s. ` +
        'Start svc with SVC_DATABASE_URL set to it and the same SVC_DATA_DIR and SVC_STORAGES (the repositories stay where they are)\n',
    )
  } catch (error) {
    const isUsage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    const isKnown = isUsage || error instanceof CopyRefused
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`svc database: ${isKnown ? message : `failed: ${message}`}\n`)
    process.exitCode = isUsage ? 2 : 1
  }
}
