import type { Config } from '../config/index.js'
import type { Db } from '../db/index.js'
import type { Caller } from './caller.js'
import type { InstanceMemo } from './instance-memo.js'
import type { Settings } from './settings.js'

/** The logging calls services make (pino's shape). */
export interface Log {
  info(object: object | string, message?: string): void
  warn(object: object | string, message?: string): void
  error(object: object | string, message?: string): void
  debug(object: object | string, message?: string): void
}

/** What a service needs to act: who asks, where data lives, and what time it is. */
export interface Context {
  db: Db
  caller: Caller
  config: Config
  settings: Settings
  log: Log
  now(): Date
  /** What the running instance keeps once made (keys, not rows: rows are read from the database). */
  memo: InstanceMemo
}
