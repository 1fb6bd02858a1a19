import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { afterAll, expect, test } from 'vitest'
import { walCommitWatch } from './wal-index.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wal-index-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

function walDatabase(name: string) {
  const file = new SQLite(path.join(dir, name))
  file.pragma('journal_mode = WAL')
  file.exec('create table kv (id integer primary key, value text)')
  return file
}

test("a commit of any connection changes the header, reads and the watch's own looks do not", () => {
  const file = walDatabase('watched.sqlite3')
  const other = new SQLite(file.name)
  const changed = walCommitWatch(file.name)
  expect(changed()).toBe(true) // the first look
  expect(changed()).toBe(false)
  other.prepare('select * from kv').all()
  file.prepare('select * from kv').all()
  expect(changed()).toBe(false)
  other.prepare("insert into kv (value) values ('from another connection')").run()
  expect(changed()).toBe(true)
  expect(changed()).toBe(false)
  file.prepare("insert into kv (value) values ('from this one')").run()
  expect(changed()).toBe(true)
  // A checkpoint that restarts the WAL, then a commit that writes it from its start again.
  file.pragma('wal_checkpoint(TRUNCATE)')
  changed()
  other.prepare("update kv set value = 'again' where id = 1").run()
  expect(changed()).toBe(true)
  other.close()
  file.close()
})

test('without a WAL index every look may have missed a commit', () => {
  const file = new SQLite(path.join(dir, 'rollback.sqlite3'))
  file.exec('create table kv (id integer primary key)')
  const changed = walCommitWatch(file.name)
  expect([changed(), changed()]).toEqual([true, true])
  file.close()
})
