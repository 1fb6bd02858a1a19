import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { readRepositoryState } from '../repositories/index.js'
import { collectGarbageWhenDue, pushedRefNames, readRefs } from './pushes.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-read-refs-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd: dir,
    encoding: 'utf8',
  })

function forEachRef(): Map<string, string> {
  const refs = new Map<string, string>()
  for (const line of git('for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/').split('\n')) {
    const [id, name] = line.split(' ')
    if (name) refs.set(name, id)
  }
  return refs
}

test('the refs read from packed-refs and loose files are what git for-each-ref lists, in its order', async () => {
  git('init', '--quiet')
  git('commit', '--quiet', '--allow-empty', '-m', 'one')
  git('branch', 'feature/deep/one')
  git('tag', '-a', 'v1', '-m', 'annotated')
  git('tag', 'light')
  git('pack-refs', '--all')
  // After packing: a loose ref that overrides its packed value, new loose refs, and a deleted packed ref.
  git('commit', '--quiet', '--allow-empty', '-m', 'two')
  git('branch', 'Zeta')
  git('branch', 'feature/two')
  git('tag', '-d', 'light')
  git('symbolic-ref', 'refs/heads/alias', 'refs/heads/main')
  const read = await readRefs(path.join(dir, '.git'))
  expect([...read]).toEqual([...forEachRef()])
  expect(read.size).toBe(6)
})

test('the repository state read from those refs is what git reads, README included', async () => {
  fs.writeFileSync(path.join(dir, 'README.md'), '# Hello\n')
  git('add', 'README.md')
  git('commit', '--quiet', '-m', 'readme')
  const gitDir = path.join(dir, '.git')
  const fromGit = await readRepositoryState(gitDir)
  expect(fromGit).toEqual({ emptyRepo: false, defaultBranch: 'main', readmePath: 'README.md' })
  expect(await readRepositoryState(gitDir, await readRefs(gitDir))).toEqual(fromGit)
  git('symbolic-ref', 'HEAD', 'refs/heads/missing')
  expect(await readRepositoryState(gitDir, await readRefs(gitDir))).toEqual(await readRepositoryState(gitDir))
})

test('with many loose refs the refs are still what git for-each-ref lists', async () => {
  for (let n = 0; n < 70; n++) git('branch', `many/${n}`, 'main')
  const read = await readRefs(path.join(dir, '.git'))
  expect([...read]).toEqual([...forEachRef()])
  expect(read.size).toBeGreaterThan(70)
})

test('the refs a push names are read from its commands; a signed push is read otherwise', () => {
  const line = (text: string) => `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')}${text}`
  const [a, b, zero] = ['a'.repeat(40), 'b'.repeat(40), '0'.repeat(40)]
  const commands = `${line(`${a} ${b} refs/heads/main\0 report-status side-band-64k\n`)}${line(`${zero} ${b} refs/tags/v1\n`)}`
  expect(pushedRefNames(Buffer.from(`${commands}${line(`${a} ${zero} refs/merge-requests/1/head\n`)}0000PACK`))).toEqual([
    'refs/heads/main',
    'refs/tags/v1',
  ])
  expect(pushedRefNames(Buffer.from(`${line(`shallow ${a}\n`)}${commands}0000`))).toEqual(['refs/heads/main', 'refs/tags/v1'])
  expect(pushedRefNames(Buffer.from(`${line('push-cert\0 report-status\n')}${line('certificate version 0.1\n')}0000`))).toBeNull()
  expect(pushedRefNames(Buffer.from(commands))).toBeNull()
})

test('loose objects past what git gc --auto allows are packed after a push; fewer are left alone', async () => {
  const gitDir = path.join(dir, '.git')
  // Packing them removes the directory too.
  const inSeventeen = () => (fs.existsSync(path.join(gitDir, 'objects/17')) ? fs.readdirSync(path.join(gitDir, 'objects/17')).length : 0)
  // Blobs whose ids start with 17, where git gc --auto counts the loose objects, reachable from a branch.
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-gc-'))
  const blobs: string[] = []
  for (let n = 0; blobs.length < 28; n++) {
    const content = `blob content ${n}\n`
    if (createHash('sha1').update(`blob ${content.length}\0${content}`).digest('hex').startsWith('17')) {
      fs.writeFileSync(path.join(files, String(blobs.length)), content)
      blobs.push(String(blobs.length))
    }
  }
  const write = (count: number) => {
    const ids = git('hash-object', '-w', ...blobs.slice(0, count).map((name) => path.join(files, name)))
      .trim()
      .split('\n')
    const tree = execFileSync('git', ['mktree'], { cwd: dir, input: ids.map((id, n) => `100644 blob ${id}\tf${n}\n`).join('') }).toString()
    git('update-ref', 'refs/heads/objects', git('commit-tree', tree.trim(), '-m', 'objects').trim())
  }
  write(20)
  const loose = inSeventeen()
  await collectGarbageWhenDue(gitDir)
  expect(inSeventeen()).toBe(loose)
  write(28)
  await collectGarbageWhenDue(gitDir)
  // git gc --auto goes on in the background, holding gc.pid while it runs.
  const running = () => inSeventeen() > 0 || fs.existsSync(path.join(gitDir, 'gc.pid'))
  for (let attempt = 0; attempt < 100 && running(); attempt++) await new Promise((resolve) => setTimeout(resolve, 100))
  expect(inSeventeen()).toBe(0)
  fs.rmSync(files, { recursive: true, force: true })
})
