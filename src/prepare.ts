import type { Config } from './config/index.js'
import type { Log } from './core/context.js'
import type { DatabaseHandle } from './db/index.js'
import { migrateToLatest } from './db/migrate.js'
import { ensureRootToken } from './features/tokens/index.js'
import { ensureRootUser } from './features/users/bootstrap.js'

/** What `svc serve` does once before serving, in one process: migrate, then make sure root and its token exist. */
export async function prepareDatabase(database: DatabaseHandle, config: Config, log: Pick<Log, 'info'>) {
  await migrateToLatest(database.db)
  await ensureRootToken(database.db, await ensureRootUser(database.db, config, log), config.rootToken)
}
