import { Migrator, PostgresAdapter, sql, type MigrationResultSet } from 'kysely'
import type { Db } from './index.js'
import { migrations } from './migrations/index.js'

/** Kysely's Migrator records each applied migration here: its name and when (an ISO 8601 string). */
const MIGRATION_TABLE = 'kysely_migration'

/** The database records a migration this build does not have: it was made by a newer svc. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly newestKnown: string,
    readonly newestApplied: string,
    readonly unknown: string[],
  ) {
    super(
      `the database's schema is newer than this version of svc: its newest migration is ${newestApplied}, ` +
        `the newest this version knows is ${newestKnown} (unknown: ${unknown.join(', ')}). ` +
        'Run the version of svc that migrated it, or restore the backup taken before the upgrade',
    )
  }
}

export interface AppliedMigration {
  name: string
  /** When it was applied, as recorded; null when the record has no time. */
  appliedAt: string | null
}

export interface MigrationState {
  /** Every migration this build has, oldest first. */
  known: string[]
  /** Every migration the database records, oldest first, including any this build does not have. */
  applied: AppliedMigration[]
}

/** The names of the migrations this build has, oldest first. */
export function knownMigrationNames(): string[] {
  return Object.keys(migrations).sort()
}

async function hasMigrationTable(db: Db): Promise<boolean> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await sql<{ present: boolean }>`select to_regclass(${MIGRATION_TABLE}) is not null as present`.execute(db)
    return rows[0].present
  }
  const { rows } = await sql<{
    count: number
  }>`select count(*) as count from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db)
  return rows[0].count > 0
}

/** What the database records and what this build knows; reads only, so it changes nothing (not even on an empty database). */
export async function readMigrationState(db: Db): Promise<MigrationState> {
  const known = knownMigrationNames()
  if (!(await hasMigrationTable(db))) return { known, applied: [] }
  const { rows } = await sql<{
    name: string
    timestamp: string | null
  }>`select name, timestamp from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db)
  return { known, applied: rows.map((row) => ({ name: row.name, appliedAt: row.timestamp || null })) }
}

/** Throws SchemaTooNewError when the database records a migration this build does not have. */
export function ensureSchemaNotNewer(state: MigrationState): void {
  const known = new Set(state.known)
  const unknown = state.applied.map((migration) => migration.name).filter((name) => !known.has(name))
  if (unknown.length === 0) return
  const newestApplied = state.applied[state.applied.length - 1].name
  throw new SchemaTooNewError(state.known[state.known.length - 1], newestApplied, unknown)
}

/**
 * Applies every pending migration; throws the first failure. A database migrated by a newer svc is refused before
 * anything is written: this build's code would misread a schema it does not know.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  ensureSchemaNotNewer(await readMigrationState(db))
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const result: MigrationResultSet = await migrator.migrateToLatest()
  if (result.error) throw result.error
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** `svc migrate --status`: one line a migration, this build's in order, then any applied that it does not know. */
export function formatMigrationStatus(state: MigrationState): string {
  const applied = new Map(state.applied.map((migration) => [migration.name, migration]))
  const known = new Set(state.known)
  const line = (status: string, at: string | null, name: string) => `${status.padEnd(8)} ${(at ?? '').padEnd(24)} ${name}`.trimEnd()
  const lines = [line('Status', 'Applied at', 'Migration')]
  for (const name of state.known) {
    const migration = applied.get(name)
    lines.push(migration ? line('applied', migration.appliedAt, name) : line('pending', null, name))
  }
  const unknown = state.applied.filter((migration) => !known.has(migration.name))
  for (const migration of unknown) lines.push(line('applied', migration.appliedAt, `${migration.name} (unknown to this version of svc)`))
  const pending = state.known.filter((name) => !applied.has(name)).length
  const summary = [`${state.applied.length - unknown.length} applied`, `${pending} pending`]
  if (unknown.length > 0) summary.push(`${unknown.length} unknown: the database's schema is newer than this version of svc`)
  lines.push('', `${summary.join(', ')}`)
  return `${lines.join('\n')}\n`
}
