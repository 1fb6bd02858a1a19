import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { freshInstanceEnv, runSvc } from '../testing/cli.js'
import type { Db } from './index.js'
import { knownMigrationNames } from './migrate.js'

const APPLIED_AT = '2026-11-28T10:00:00.000Z'
const NEWER = '20991231T2359_from_a_newer_svc'
const NEWER_APPLIED_AT = '2099-12-31T23:59:00.000Z'

/** Everything a start could change here: the recorded migrations, the tables, the users (a start makes root). */
async function snapshot(db: Db) {
  const migrations = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name`.execute(db)
  const tables = (await db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name).sort()
  const users = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  return { migrations: migrations.rows, tables, users: Number(users.count) }
}

function statusLine(status: string, at: string, name: string) {
  return `${status.padEnd(8)} ${at.padEnd(24)} ${name}`.trimEnd()
}

describe('a database whose schema is newer than the code', () => {
  test('serve and migrate refuse it, naming both versions, before changing anything; migrate --status lists it', async () => {
    const { env, open } = await freshInstanceEnv({ migrated: true })
    const database = await open()
    await sql`update kysely_migration set timestamp = ${APPLIED_AT}`.execute(database.db)
    await sql`insert into kysely_migration (name, timestamp) values (${NEWER}, ${NEWER_APPLIED_AT})`.execute(database.db)
    const before = await snapshot(database.db)
    await database.close()

    const known = knownMigrationNames()
    const refusal =
      `svc: the database's schema is newer than this version of svc: its newest migration is ${NEWER}, ` +
      `the newest this version knows is ${known.at(-1)} (unknown: ${NEWER}). ` +
      'Run the version of svc that migrated it, or restore the backup taken before the upgrade\n'
    for (const command of [['serve'], ['migrate']]) {
      const result = await runSvc(command, env)
      expect({ command, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        command,
        code: 1,
        stdout: '',
        stderr: refusal,
      })
    }

    const status = await runSvc(['migrate', '--status'], env)
    expect(status.code).toBe(0)
    expect(status.stderr).toBe('')
    expect(status.stdout).toBe(
      [
        statusLine('Status', 'Applied at', 'Migration'),
        ...known.map((name) => statusLine('applied', APPLIED_AT, name)),
        statusLine('applied', NEWER_APPLIED_AT, `${NEWER} (unknown to this version of svc)`),
        '',
        `${known.length} applied, 0 pending, 1 unknown: the database's schema is newer than this version of svc`,
        '',
      ].join('\n'),
    )

    const after = await open()
    expect(await snapshot(after.db)).toEqual(before)
    expect(before.users).toBe(0)
    await after.close()
  })
})

describe('svc migrate --status', () => {
  test('on an empty database lists every migration as pending and creates nothing', async () => {
    const { env, open } = await freshInstanceEnv()
    const status = await runSvc(['migrate', '--status'], env)
    expect(status.code).toBe(0)
    const known = knownMigrationNames()
    expect(status.stdout).toBe(
      [
        statusLine('Status', 'Applied at', 'Migration'),
        ...known.map((name) => statusLine('pending', '', name)),
        '',
        `0 applied, ${known.length} pending`,
        '',
      ].join('\n'),
    )
    const database = await open()
    const tables = (await database.db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name)
    expect(tables.filter((name) => name !== 'svc_write_journal')).toEqual([])
    await database.close()
  })

  test('after a partial upgrade lists what is applied, with when, and what is pending', async () => {
    const { env, open } = await freshInstanceEnv({ migrated: true })
    const known = knownMigrationNames()
    const database = await open()
    await sql`update kysely_migration set timestamp = ${APPLIED_AT}`.execute(database.db)
    // As an older svc left it: the newest migration not yet run, and one recorded without a time.
    await sql`delete from kysely_migration where name = ${known.at(-1)!}`.execute(database.db)
    await sql`update kysely_migration set timestamp = '' where name = ${known[0]}`.execute(database.db)
    await database.close()

    const status = await runSvc(['migrate', '--status'], env)
    expect(status.code).toBe(0)
    expect(status.stdout).toBe(
      [
        statusLine('Status', 'Applied at', 'Migration'),
        statusLine('applied', '', known[0]),
        ...known.slice(1, -1).map((name) => statusLine('applied', APPLIED_AT, name)),
        statusLine('pending', '', known.at(-1)!),
        '',
        `${known.length - 1} applied, 1 pending`,
        '',
      ].join('\n'),
    )
  })
})
