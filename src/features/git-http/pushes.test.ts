import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { readRepositoryState } from '../repositories/index.js'
import { readRefs } from './pushes.js'

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
