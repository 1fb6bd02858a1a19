import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql, type Kysely } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase, type DatabaseHandle, type Db } from './index.js'

// Two connections to one SQLite file, as two worker processes have: one waiting for the write lock the other holds
// must not stall the event loop. (In one process, a stalled loop would hold up the holder too, until the wait failed.)
let dir: string
let first: DatabaseHandle
let second: DatabaseHandle

const kv = (db: Db) => db as unknown as Kysely<{ kv: { id: number; value: string } }>
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-write-lock-'))
  first = await openDatabase({ databaseUrl: null, dataDir: dir })
  second = await openDatabase({ databaseUrl: null, dataDir: dir })
  await sql`create table kv (id integer primary key, value text not null)`.execute(first.db)
})
afterAll(async () => {
  await first.close()
  await second.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('a transaction and a lone write wait for the lock another connection holds, while timers still run', async () => {
  const order: string[] = []
  let releaseHolder!: () => void
  const held = new Promise<void>((resolve) => (releaseHolder = resolve))
  let holding!: () => void
  const lockTaken = new Promise<void>((resolve) => (holding = resolve))
  const holder = kv(first.db)
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('kv').values({ id: 1, value: 'first' }).execute()
      holding()
      await held
      order.push('holder commits')
    })
  await lockTaken
  const waitingTransaction = kv(second.db)
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('kv').values({ id: 2, value: 'second' }).execute()
      order.push('transaction wrote')
    })
  const waitingWrite = kv(second.db)
    .updateTable('kv')
    .set({ value: 'updated' })
    .where('id', '=', 1)
    .execute()
    .then(() => order.push('lone write wrote'))
  const started = Date.now()
  await pause(50)
  // The loop turned on time while both waited.
  expect(Date.now() - started).toBeLessThan(1000)
  order.push('timer fired')
  releaseHolder()
  await Promise.all([holder, waitingTransaction, waitingWrite])
  expect(order).toEqual(['timer fired', 'holder commits', 'transaction wrote', 'lone write wrote'])
  expect(await kv(first.db).selectFrom('kv').selectAll().orderBy('id').execute()).toEqual([
    { id: 1, value: 'updated' },
    { id: 2, value: 'second' },
  ])
})
