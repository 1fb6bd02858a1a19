import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { WalSync } from './durability.js'

let dir: string
let file: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-durability-'))
  file = path.join(dir, 'svc.sqlite3-wal')
  fs.writeFileSync(file, '')
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** Real fdatasync calls, each recorded with when it began and ended. */
function recordedSyncs() {
  const syncs: { began: number; ended: number }[] = []
  let clock = 0
  const sync = async (fd: number) => {
    const entry = { began: ++clock, ended: 0 }
    syncs.push(entry)
    await promisify(fs.fdatasync)(fd)
    entry.ended = ++clock
  }
  return { syncs, sync, now: () => ++clock }
}

test('every caller waits for a sync that began after it asked, and callers arriving together share one', async () => {
  const { syncs, sync, now } = recordedSyncs()
  const wal = new WalSync(file, sync)
  const asked: number[] = []
  const answered: Promise<number>[] = []
  for (let n = 0; n < 50; n++) {
    asked.push(now())
    answered.push(wal.durable().then(now))
    // Some callers arrive while a sync runs.
    if (n % 10 === 9) await new Promise((resolve) => setImmediate(resolve))
  }
  const done = await Promise.all(answered)
  wal.close()
  expect(syncs.length).toBeGreaterThan(1)
  expect(syncs.length).toBeLessThan(15)
  for (let n = 0; n < asked.length; n++) {
    expect(syncs.some((s) => s.began > asked[n] && s.ended < done[n])).toBe(true)
  }
})

test('a failed sync fails the callers that waited for it, and the next caller syncs again', async () => {
  let fail = true
  const wal = new WalSync(file, async (fd) => {
    if (fail) throw new Error('EIO')
    await promisify(fs.fdatasync)(fd)
  })
  await expect(wal.durable()).rejects.toThrow('EIO')
  fail = false
  await expect(wal.durable()).resolves.toBeUndefined()
  wal.close()
})
