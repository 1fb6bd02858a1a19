import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { openDatabase } from '../db/index.js'
import { migrateToLatest } from '../db/migrate.js'

/** PostgreSQL server to test against; unset means SQLite only. */
export const TEST_DATABASE_URL = process.env.SVC_TEST_DATABASE_URL || null

/** Every database a test run creates on PostgreSQL starts with this, so a run's leftovers are easy to find. */
const DATABASE_PREFIX = 'svc_test_'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template of this run: a SQLite file, or a PostgreSQL database name; null when there is none. */
    migratedTemplate: string | null
  }
}

export interface FreshDatabase {
  databaseUrl: string | null
  dataDir: string
  drop(): Promise<void>
}

function databaseUrlNamed(name: string): string {
  const url = new URL(TEST_DATABASE_URL!)
  url.pathname = `/${name}`
  return url.toString()
}

async function adminQuery(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL! })
  await admin.connect()
  try {
    await admin.query(statement)
  } finally {
    await admin.end()
  }
}

/** The template this run's global setup migrated, when tests run under it. */
function migratedTemplate(): string | null {
  try {
    return inject('migratedTemplate') ?? null
  } catch {
    return null
  }
}

/**
 * A fresh database: a new SQLite directory, or a new PostgreSQL database dropped on close. With `migrated`,
 * it is a copy of the run's migrated template (copying costs far less than migrating), else it is empty.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<FreshDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'))
  const template = options.migrated ? migratedTemplate() : null
  if (!TEST_DATABASE_URL) {
    if (template) fs.copyFileSync(template, path.join(dataDir, 'svc.sqlite3'))
    return { databaseUrl: null, dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) }
  }
  const name = `${DATABASE_PREFIX}${randomBytes(6).toString('hex')}`
  await adminQuery(template ? `create database ${name} template ${template}` : `create database ${name}`)
  return {
    databaseUrl: databaseUrlNamed(name),
    dataDir,
    async drop() {
      await adminQuery(`drop database if exists ${name} with (force)`)
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A migrated database for fresh test databases to copy: a SQLite file, or a PostgreSQL database; `drop` removes it. */
export async function createMigratedTemplate(): Promise<{ template: string; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-template-'))
  const name = `${DATABASE_PREFIX}template_${randomBytes(6).toString('hex')}`
  if (TEST_DATABASE_URL) await adminQuery(`create database ${name}`)
  const database = await openDatabase({ databaseUrl: TEST_DATABASE_URL ? databaseUrlNamed(name) : null, dataDir })
  try {
    await migrateToLatest(database.db)
  } finally {
    // Closing the last SQLite connection folds the write-ahead log into the file, so the file alone is the database.
    await database.close()
  }
  if (!TEST_DATABASE_URL) {
    return { template: path.join(dataDir, 'svc.sqlite3'), drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) }
  }
  fs.rmSync(dataDir, { recursive: true, force: true })
  return { template: name, drop: () => adminQuery(`drop database if exists ${name} with (force)`) }
}
