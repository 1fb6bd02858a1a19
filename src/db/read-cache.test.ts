import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase, type DatabaseHandle, type Db } from './index.js'
import { executeRows, preparedQuery } from './prepared.js'

// The cache belongs to the embedded engine: these tests open a SQLite file of their own whichever engine the suite runs.
let dir: string
let database: DatabaseHandle

/** A table of the test's own, outside svc's schema. */
const kv = (db: Db) => db as unknown as Kysely<{ kv: { id: number; value: string; taken: number } }>

const findNote = preparedQuery((db: Db, id: number) => kv(db).selectFrom('kv').selectAll().where('id', '=', id))
const takeNote = preparedQuery((db: Db, id: number) =>
  kv(db).updateTable('kv').set({ taken: 1 }).where('id', '=', id).where('taken', '=', 0).returning('id'),
)
const findNotes = preparedQuery((db: Db, ids: readonly number[], taken: number) =>
  kv(db).selectFrom('kv').selectAll().where('id', 'in', ids).where('taken', '=', taken).orderBy('id'),
)
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-read-cache-'))
  database = await openDatabase({ databaseUrl: null, dataDir: dir })
  await sql`create table kv (id integer primary key, value text not null, taken integer not null default 0)`.execute(database.db)
  await sql`insert into kv (id, value) values (1, 'one'), (2, 'two')`.execute(database.db)
})
afterAll(async () => {
  await database.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a kept read answers what the table holds after this process writes it, in or out of a transaction', async () => {
  expect(await findNote(database.db, 1)).toEqual([{ id: 1, value: 'one', taken: 0 }])
  await kv(database.db).updateTable('kv').set({ value: 'uno' }).where('id', '=', 1).execute()
  expect(await findNote(database.db, 1)).toEqual([{ id: 1, value: 'uno', taken: 0 }])
  await database.db.transaction().execute(async (trx) => {
    await sql`update kv set value = 'eins' where id = 1`.execute(trx)
    // Inside the transaction a read sees its own change, and nothing it reads there is kept.
    expect(await findNote(trx, 1)).toEqual([{ id: 1, value: 'eins', taken: 0 }])
  })
  expect(await findNote(database.db, 1)).toEqual([{ id: 1, value: 'eins', taken: 0 }])
})

test("another connection's commit is seen from the next turn of the event loop on", async () => {
  expect(await executeRows(database.db, kv(database.db).selectFrom('kv').select('value').where('id', '=', 2))).toEqual([{ value: 'two' }])
  const other = new SQLite(path.join(dir, 'svc.sqlite3'))
  other.prepare("update kv set value = 'deux' where id = 2").run()
  other.close()
  await nextTurn()
  expect(await executeRows(database.db, kv(database.db).selectFrom('kv').select('value').where('id', '=', 2))).toEqual([{ value: 'deux' }])
})

test('kept rows are frozen, and a changed copy of the list leaves the kept one whole', async () => {
  const [row] = await findNote(database.db, 2)
  expect(() => {
    ;(row as { value: string }).value = 'changed'
  }).toThrow(TypeError)
  const rows = await findNote(database.db, 2)
  rows.pop()
  expect(await findNote(database.db, 2)).toHaveLength(1)
})

test('a write with a returning clause runs every time, never from the cache', async () => {
  expect(await takeNote(database.db, 2)).toEqual([{ id: 2 }])
  expect(await takeNote(database.db, 2)).toEqual([])
  expect(await findNote(database.db, 2)).toEqual([{ id: 2, value: 'deux', taken: 1 }])
})

test('a write drops what SQLite changed with it: rows of cascading foreign keys and of triggers', async () => {
  await sql`create table parent (id integer primary key)`.execute(database.db)
  await sql`create table child (id integer primary key, parent_id integer references parent (id) on delete cascade)`.execute(database.db)
  await sql`create table tally (n integer not null)`.execute(database.db)
  await sql`insert into tally (n) values (0)`.execute(database.db)
  await sql`create trigger count_parents after insert on parent begin update tally set n = n + 1; end`.execute(database.db)
  await sql`insert into parent (id) values (1)`.execute(database.db)
  await sql`insert into child (id, parent_id) values (1, 1)`.execute(database.db)
  const children = () =>
    kv(database.db)
      .selectFrom('child' as 'kv')
      .select('id')
      .execute()
  const tally = () =>
    executeRows(
      database.db,
      kv(database.db)
        .selectFrom('tally' as 'kv')
        .selectAll(),
    )
  expect(await children()).toEqual([{ id: 1 }])
  expect(await tally()).toEqual([{ n: 1 }])
  await sql`delete from "parent" where id = 1`.execute(database.db)
  await sql`insert into "parent" (id) values (2)`.execute(database.db)
  expect(await children()).toEqual([])
  expect(await tally()).toEqual([{ n: 2 }])
})

test("another svc connection's commit drops only what reads of the tables it wrote answered", async () => {
  await sql`create table other (id integer primary key, value text not null)`.execute(database.db)
  await sql`insert into other (id, value) values (1, 'a')`.execute(database.db)
  const readOther = () =>
    executeRows(
      database.db,
      kv(database.db)
        .selectFrom('other' as 'kv')
        .select('value'),
    )
  const readKv = () => executeRows(database.db, kv(database.db).selectFrom('kv').select('value').where('id', '=', 1))
  const second = await openDatabase({ databaseUrl: null, dataDir: dir })
  try {
    // This process's own earlier writes are dropped at the first commit of another, once.
    await sql`update other set value = 'a'`.execute(second.db)
    await nextTurn()
    expect(await readOther()).toEqual([{ value: 'a' }])
    const [kept] = await readKv()
    await sql`update other set value = 'b'`.execute(second.db)
    await nextTurn()
    expect(await readOther()).toEqual([{ value: 'b' }])
    // The same frozen row object: kept through the other connection's commit.
    expect((await readKv())[0]).toBe(kept)
    await kv(second.db).updateTable('kv').set({ value: 'changed elsewhere' }).where('id', '=', 1).execute()
    await nextTurn()
    expect(await readKv()).toEqual([{ value: 'changed elsewhere' }])
  } finally {
    await second.close()
  }
})

test('a prepared query with an array argument answers for arrays of every length and values', async () => {
  await sql`insert into kv (id, value) values (10, 'ten'), (11, 'eleven'), (12, 'twelve')`.execute(database.db)
  const values = (rows: { value: string }[]) => rows.map((row) => row.value)
  expect(values(await findNotes(database.db, [10], 0))).toEqual(['ten'])
  expect(values(await findNotes(database.db, [11, 12], 0))).toEqual(['eleven', 'twelve'])
  expect(values(await findNotes(database.db, [12, 10, 11], 0))).toEqual(['ten', 'eleven', 'twelve'])
  expect(values(await findNotes(database.db, [12], 0))).toEqual(['twelve'])
  expect(values(await findNotes(database.db, [10, 11], 1))).toEqual([])
  await sql`delete from kv where id >= 10`.execute(database.db)
})
