import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { tablesWrittenBy, WriteWatch } from './writes.js'

// A write is answered only once the durability hook resolves, and the connection serves others meanwhile.
type Schema = { kv: { id: number; value: string } }
let db: Kysely<Schema>
let release: (() => void)[] = []
let durableCalls = 0

beforeAll(async () => {
  const durable = () => {
    durableCalls += 1
    return new Promise<void>((resolve) => release.push(resolve))
  }
  db = new Kysely<Schema>({ dialect: new WriteWatch().dialect(new SqliteDialect({ database: new SQLite(':memory:') }), { durable }) })
  await sql`create table kv (id integer primary key, value text not null)`.execute(db)
})
afterAll(() => db.destroy())
beforeEach(() => {
  release = []
  durableCalls = 0
})

/** Lets every write waiting for durability go on. */
const releaseAll = () => release.forEach((resolve) => resolve())

const settled = async (promise: Promise<unknown>) => {
  let done = false
  void promise.then(() => (done = true))
  for (let n = 0; n < 5; n++) await new Promise((resolve) => setImmediate(resolve))
  return done
}

test('a statement that writes waits for durability; a read does not, even while the write waits', async () => {
  const write = db.insertInto('kv').values({ id: 1, value: 'one' }).execute()
  expect(await settled(write)).toBe(false)
  expect(durableCalls).toBe(1)
  // The row is committed and the connection is free: a read answers at once.
  expect(await db.selectFrom('kv').selectAll().execute()).toEqual([{ id: 1, value: 'one' }])
  expect(durableCalls).toBe(1)
  releaseAll()
  expect(await settled(write)).toBe(true)
})

test('a transaction that wrote waits for durability after its commit; one that only read does not', async () => {
  const write = db.transaction().execute(async (trx) => {
    await trx.insertInto('kv').values({ id: 2, value: 'two' }).execute()
    await trx.updateTable('kv').set({ value: 'deux' }).where('id', '=', 2).execute()
  })
  expect(await settled(write)).toBe(false)
  expect(durableCalls).toBe(1)
  const read = db.transaction().execute((trx) => trx.selectFrom('kv').selectAll().where('id', '=', 2).execute())
  expect(await read).toEqual([{ id: 2, value: 'deux' }])
  expect(durableCalls).toBe(1)
  releaseAll()
  expect(await settled(write)).toBe(true)
})

test('a rolled-back transaction does not wait', async () => {
  const failed = db.transaction().execute(async (trx) => {
    await trx.insertInto('kv').values({ id: 3, value: 'three' }).execute()
    throw new Error('changed my mind')
  })
  await expect(failed).rejects.toThrow('changed my mind')
  expect(durableCalls).toBe(0)
  expect(await db.selectFrom('kv').select('id').where('id', '=', 3).execute()).toEqual([])
})

test('the tables SQL writes: statements, upserts and trigger bodies, no keyword taken for a table', () => {
  expect([...tablesWrittenBy('insert into "jobs" ("id") values (?) on conflict ("id") do update set "id" = excluded."id"')]).toEqual([
    'jobs',
  ])
  expect([...tablesWrittenBy('update "Labels" set "title" = ? where "id" = ?')]).toEqual(['labels'])
  expect([...tablesWrittenBy('delete from "members" where "id" = ?')]).toEqual(['members'])
  expect([
    ...tablesWrittenBy(
      'create trigger t after update of "state" on "issues" begin update label_counts set n = n + 1; insert into "events" values (1); end',
    ),
  ]).toEqual(['label_counts', 'events'])
  expect([...tablesWrittenBy('select * from "projects"')]).toEqual([])
})
