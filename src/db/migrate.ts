import { Migrator, type MigrationResultSet } from 'kysely'
import type { Db } from './index.js'
import { migrations } from './migrations/index.js'

/** Applies every pending migration; throws the first failure. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const result: MigrationResultSet = await migrator.migrateToLatest()
  if (result.error) throw result.error
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
