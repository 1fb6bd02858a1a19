import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { GitClient } from '../../testing/git.js'
import { lastCommitForPath } from './repository.js'

const gitClient = new GitClient()
const work = path.join(gitClient.workDir, 'work')
const directory = path.join(work, '.git')
const commits: string[] = []

beforeAll(async () => {
  await gitClient.ok(gitClient.workDir, 'init', '-q', '--initial-branch=main', work)
  for (const [file, text] of [
    ['a.txt', 'one'],
    ['b.txt', 'two'],
    ['a.txt', 'three'],
    ['c.txt', 'four'],
  ]) {
    fs.writeFileSync(path.join(work, file), text)
    await gitClient.ok(work, 'add', file)
    await gitClient.ok(work, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', `${file} ${text}`)
    commits.push((await gitClient.ok(work, 'rev-parse', 'HEAD')).trim())
  }
})
afterAll(() => gitClient.remove())

test('the last commit that changed a path, asked many times at once, by commit id or by branch', async () => {
  const head = commits[3]
  const asked = await Promise.all([
    ...Array.from({ length: 5 }, () => lastCommitForPath(directory, head, 'a.txt')),
    lastCommitForPath(directory, head, 'b.txt'),
    lastCommitForPath(directory, commits[1], 'a.txt'),
    lastCommitForPath(directory, 'main', 'c.txt'),
    lastCommitForPath(directory, head, 'nowhere.txt'),
    lastCommitForPath(directory, 'no-such-branch', 'a.txt'),
  ])
  expect(asked).toEqual([commits[2], commits[2], commits[2], commits[2], commits[2], commits[1], commits[0], commits[3], null, null])
  // Kept answers, and a path that names nothing is kept as nothing too.
  expect(await lastCommitForPath(directory, head, 'a.txt')).toBe(commits[2])
  expect(await lastCommitForPath(directory, head, 'nowhere.txt')).toBeNull()
})
