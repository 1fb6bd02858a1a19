import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { AdvertisementCache } from './advertisements.js'

let repository: string
const answer = (text: string) => ({
  status: 200,
  headers: [['content-type', 'text/plain']] as [string, string][],
  body: Readable.from([Buffer.from(text)]),
})
const settle = () => new Promise((resolve) => setTimeout(resolve, 50))
/** A ref written as git writes one: a lock file beside it, renamed into place. */
function writeRef(name: string, value: string) {
  const file = path.join(repository, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(`${file}.lock`, `${value}\n`)
  fs.renameSync(`${file}.lock`, file)
}

beforeAll(() => {
  repository = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-advertisements-'))
  writeRef('refs/heads/main', 'a'.repeat(40))
})
afterAll(() => fs.rmSync(repository, { recursive: true, force: true }))

test('an advertisement is kept while the refs stay as they were, and dropped when one is written', async () => {
  const cache = new AdvertisementCache()
  await settle()
  expect((await cache.keep(repository, 'upload', answer('first'))).body.toString()).toBe('first')
  expect(cache.find(repository, 'upload')?.body.toString()).toBe('first')
  expect(cache.find(repository, 'receive')).toBeNull()
  writeRef('refs/heads/feature/one', 'b'.repeat(40))
  expect(cache.find(repository, 'upload')).toBeNull()
})

test('an advertisement made just after a ref changed is answered but not kept', async () => {
  const cache = new AdvertisementCache()
  writeRef('refs/heads/main', 'c'.repeat(40))
  expect((await cache.keep(repository, 'upload', answer('fresh'))).body.toString()).toBe('fresh')
  expect(cache.find(repository, 'upload')).toBeNull()
  await settle()
  await cache.keep(repository, 'upload', answer('settled'))
  expect(cache.find(repository, 'upload')?.body.toString()).toBe('settled')
  // A nested ref directory counts too.
  writeRef('refs/heads/feature/one', 'd'.repeat(40))
  expect(cache.find(repository, 'upload')).toBeNull()
})

test('callers arriving while an advertisement is made share it, unless a ref changed since it started', async () => {
  const cache = new AdvertisementCache()
  await settle()
  let made = 0
  const waiting: (() => void)[] = []
  const finish = () => waiting.splice(0).forEach((resolve) => resolve())
  const slow = async () => {
    const number = ++made
    await new Promise<void>((resolve) => waiting.push(resolve))
    return answer(`made ${number}`)
  }
  // The kept answer is dropped by a ref change; then two callers come while one is being made.
  writeRef('refs/heads/main', 'e'.repeat(40))
  await settle()
  const first = cache.answer(repository, 'shared', slow)
  const second = cache.answer(repository, 'shared', slow)
  finish()
  expect((await first).body.toString()).toBe('made 1')
  expect((await second).body.toString()).toBe('made 1')
  expect(made).toBe(1)

  writeRef('refs/heads/other', 'f'.repeat(40))
  await settle()
  const before = cache.answer(repository, 'changing', slow)
  writeRef('refs/heads/other', '0'.repeat(39) + '1')
  const after = cache.answer(repository, 'changing', slow)
  expect(made).toBe(3)
  finish()
  await Promise.all([before, after])
})
