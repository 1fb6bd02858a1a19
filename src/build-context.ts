import type { Config } from './config/index.js'
import type { Caller } from './core/caller.js'
import type { Context, Log } from './core/context.js'
import type { InstanceMemo } from './core/instance-memo.js'
import type { Settings } from './core/settings.js'
import type { Db } from './db/index.js'

/** What one running instance makes every Context from; buildApp owns them, the CLI makes its own. */
export interface ContextParts {
  db: Db
  config: Config
  /** The instance's settings cache: each Context reads the settings as they are when it is built. */
  settings: {
    current(): Promise<Settings>
    /** The settings when they are at hand without a read (the cache is fresh), else null. */
    kept(): Settings | null
  }
  clock: () => Date
  log: Log
  memo: InstanceMemo
}

/**
 * The Context a service acts with, built the same way for a request, a job, a command and a test: the instance's
 * database, configuration and clock, and the current settings (an administrator's change applies to the next one).
 */
export async function buildContext(parts: ContextParts, caller: Caller, log: Log = parts.log): Promise<Context> {
  return contextWith(parts, caller, parts.settings.kept() ?? (await parts.settings.current()), log)
}

/** The same, with the settings already read (a request reads them before it knows its caller). */
export function contextWith(parts: ContextParts, caller: Caller, settings: Settings, log: Log = parts.log): Context {
  return { db: parts.db, caller, config: parts.config, settings, log, now: parts.clock, memo: parts.memo }
}
