import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { execFileSync } from 'node:child_process'
import type { Readable } from 'node:stream'
import {
  DIFF_MAX_FILES,
  DIFF_MAX_LINES,
  DIFF_MAX_PATCH_BYTES,
  DiffReader,
  diffBetween,
  diffStats,
  patchIdBetween,
  rawPatchBetween,
  unifiedDiffOf,
} from './diffs.js'
import { git, GitError } from './git.js'

async function text(stream: Readable): Promise<string> {
  const parts: Buffer[] = []
  for await (const part of stream) parts.push(part as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

let work: string
let gitDir: string
const shas: string[] = []

/** Commits everything in a work tree (its repository at `<tree>/.git`) and answers the commit. */
async function commitTree(tree: string, message: string): Promise<string> {
  const gitDir = path.join(tree, '.git')
  const env = {
    GIT_WORK_TREE: tree,
    GIT_AUTHOR_NAME: 'A',
    GIT_AUTHOR_EMAIL: 'a@example.com',
    GIT_COMMITTER_NAME: 'A',
    GIT_COMMITTER_EMAIL: 'a@example.com',
  }
  await git(['add', '-A'], { gitDir, env })
  await git(['commit', '--quiet', '--allow-empty', '-m', message], { gitDir, env })
  return (await git(['rev-parse', 'HEAD'], { gitDir })).trim()
}

const commitAll = (message: string) => commitTree(work, message)

/** A new work tree with its repository, on main. */
async function newWorkTree(prefix: string): Promise<string> {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  await git(['init', '--quiet', '--initial-branch=main', tree])
  return tree
}

beforeAll(async () => {
  work = await newWorkTree('svc-diffs-')
  gitDir = path.join(work, '.git')
  fs.writeFileSync(path.join(work, 'with space.txt'), 'one\n')
  fs.writeFileSync(path.join(work, 'script.sh'), 'echo\n')
  fs.writeFileSync(path.join(work, 'link-or-file'), 'a file\n')
  shas.push(await commitAll('first'))
  fs.writeFileSync(path.join(work, 'empty'), '')
  fs.writeFileSync(path.join(work, 'naïve "quoted".txt'), 'ü\n')
  fs.chmodSync(path.join(work, 'script.sh'), 0o755)
  fs.rmSync(path.join(work, 'link-or-file'))
  fs.symlinkSync('with space.txt', path.join(work, 'link-or-file'))
  fs.appendFileSync(path.join(work, 'with space.txt'), 'diff --git a/x b/x\n')
  shas.push(await commitAll('second'))
})

afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

describe('diffBetween', () => {
  test('a root commit: every file new', async () => {
    const { files, overflow } = await diffBetween(gitDir, null, shas[0])
    expect(overflow).toBe(false)
    expect(files.map((file) => [file.newPath, file.newFile, file.aMode, file.bMode])).toEqual([
      ['link-or-file', true, '0', '100644'],
      ['script.sh', true, '0', '100644'],
      ['with space.txt', true, '0', '100644'],
    ])
  })

  test('empty files, odd names, mode and type changes, and a content line that looks like a header', async () => {
    const { files } = await diffBetween(gitDir, shas[0], shas[1])
    const shown = files.map((file) => ({
      path: file.newPath,
      new: file.newFile,
      deleted: file.deletedFile,
      modes: `${file.aMode}>${file.bMode}`,
      diff: file.diff,
    }))
    expect(shown).toEqual([
      { path: 'empty', new: true, deleted: false, modes: '0>100644', diff: '' },
      { path: 'link-or-file', new: false, deleted: true, modes: '100644>0', diff: '@@ -1 +0,0 @@\n-a file\n' },
      {
        path: 'link-or-file',
        new: true,
        deleted: false,
        modes: '0>120000',
        diff: '@@ -0,0 +1 @@\n+with space.txt\n\\ No newline at end of file\n',
      },
      { path: 'naïve "quoted".txt', new: true, deleted: false, modes: '0>100644', diff: '@@ -0,0 +1 @@\n+ü\n' },
      { path: 'script.sh', new: false, deleted: false, modes: '100644>100755', diff: '' },
      { path: 'with space.txt', new: false, deleted: false, modes: '100644>100644', diff: '@@ -1 +1,2 @@\n one\n+diff --git a/x b/x\n' },
    ])
    expect(files[5]).toMatchObject({ additions: 1, deletions: 0 })
    expect(unifiedDiffOf(files[5])).toBe('--- a/with space.txt\n+++ b/with space.txt\n@@ -1 +1,2 @@\n one\n+diff --git a/x b/x\n')
  })

  test('stats and the raw patch of the same commits', async () => {
    expect(await diffStats(gitDir, shas[0], shas[1])).toEqual({ additions: 3, deletions: 1 })
    const patch = await text(await rawPatchBetween(gitDir, shas[0], shas[1]))
    expect(patch.startsWith('diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..')).toBe(
      true,
    )
  })
})

describe('past the limits', () => {
  let big: string
  let bigDir: string
  const bigShas: string[] = []

  const commitBig = (message: string) => commitTree(big, message)

  beforeAll(async () => {
    big = await newWorkTree('svc-diffs-big-')
    bigDir = path.join(big, '.git')
    fs.writeFileSync(path.join(big, 'seed'), 'seed\n')
    bigShas.push(await commitBig('seed'))
    // A file whose patch passes the per-file limit, between two small ones.
    fs.writeFileSync(path.join(big, 'a.txt'), 'a\n')
    fs.writeFileSync(path.join(big, 'b-huge.txt'), 'x'.repeat(99) + '\n'.repeat(1) + `${'y'.repeat(99)}\n`.repeat(2_100))
    fs.writeFileSync(path.join(big, 'c.txt'), 'c\n')
    bigShas.push(await commitBig('huge file'))
    // More files than a diff shows.
    fs.mkdirSync(path.join(big, 'many'))
    for (let index = 0; index < DIFF_MAX_FILES + 5; index += 1)
      fs.writeFileSync(path.join(big, 'many', `f${String(index).padStart(4, '0')}`), `${index}\n`)
    bigShas.push(await commitBig('many files'))
    fs.rmSync(path.join(big, 'many'), { recursive: true })
    // More lines than a diff shows, after one small file.
    fs.writeFileSync(path.join(big, 'd.txt'), 'd\n')
    fs.writeFileSync(path.join(big, 'e-long.txt'), 'l\n'.repeat(DIFF_MAX_LINES + 10))
    bigShas.push(await commitBig('many lines'))
  })

  afterAll(() => fs.rmSync(big, { recursive: true, force: true }))

  test('a patch past DIFF_MAX_PATCH_BYTES keeps no text, only its counts, and the files after it are shown', async () => {
    const { files, overflow } = await diffBetween(bigDir, bigShas[0], bigShas[1])
    expect(overflow).toBe(false)
    expect(files.map((file) => [file.newPath, file.tooLarge, file.additions, file.deletions, file.diff.length])).toEqual([
      ['a.txt', false, 1, 0, '@@ -0,0 +1 @@\n+a\n'.length],
      ['b-huge.txt', true, 2_101, 0, 0],
      ['c.txt', false, 1, 0, '@@ -0,0 +1 @@\n+c\n'.length],
    ])
    expect(2_101 * 101).toBeGreaterThan(DIFF_MAX_PATCH_BYTES)
  })

  test('more files than DIFF_MAX_FILES: the first ones, and overflow', async () => {
    const { files, overflow } = await diffBetween(bigDir, bigShas[1], bigShas[2])
    expect(overflow).toBe(true)
    expect(files.length).toBe(DIFF_MAX_FILES)
    expect(files[0]).toMatchObject({ newPath: 'many/f0000', diff: '@@ -0,0 +1 @@\n+0\n' })
    expect(files[DIFF_MAX_FILES - 1]).toMatchObject({
      newPath: `many/f0${DIFF_MAX_FILES - 1}`,
      diff: `@@ -0,0 +1 @@\n+${DIFF_MAX_FILES - 1}\n`,
    })
  })

  test('once the limits overflow, the reader asks for no more of what git writes', () => {
    for (const [from, to] of [
      [bigShas[1], bigShas[2]],
      [bigShas[2], bigShas[3]],
    ]) {
      const out = execFileSync('git', [`--git-dir=${bigDir}`, 'diff-tree', '-r', '-z', '--raw', '-p', '--full-index', from, to], {
        maxBuffer: 1 << 26,
      })
      const reader = new DiffReader()
      let read = 0
      while (read < out.length && reader.push(out.subarray(read, read + 64))) read += 64
      expect(reader.overflow).toBe(true)
      // The piece it stopped in is not the last one.
      expect(read + 64).toBeLessThan(out.length)
    }
  })

  test('more lines than DIFF_MAX_LINES: the files before the one that passes them, and overflow', async () => {
    const { files, overflow } = await diffBetween(bigDir, bigShas[2], bigShas[3])
    expect(overflow).toBe(true)
    expect(files.map((file) => file.newPath)).toEqual(['d.txt'])
  })

  test('the reader reads the same whatever pieces git writes in', async () => {
    const out = execFileSync(
      'git',
      [
        `--git-dir=${gitDir}`,
        'diff-tree',
        '-r',
        '-z',
        '--raw',
        '-p',
        '-M30%',
        '--full-index',
        '--no-color',
        '--no-commit-id',
        shas[0],
        shas[1],
      ],
      { maxBuffer: 1 << 20 },
    )
    const whole = await diffBetween(gitDir, shas[0], shas[1])
    for (const size of [1, 2, 7, 13, 14, 64]) {
      const reader = new DiffReader()
      for (let at = 0; at < out.length; at += size) reader.push(out.subarray(at, at + size))
      reader.finish()
      expect({ files: reader.files, overflow: reader.overflow }, `pieces of ${size}`).toEqual(whole)
    }
  })

  test('stats count every file, however many', async () => {
    expect(await diffStats(bigDir, bigShas[1], bigShas[2])).toEqual({ additions: DIFF_MAX_FILES + 5, deletions: 0 })
    expect(await diffStats(bigDir, null, bigShas[0])).toEqual({ additions: 1, deletions: 0 })
  })

  test('the raw patch streams the whole patch; a commit git does not know rejects before any byte', async () => {
    const expected = execFileSync('git', [`--git-dir=${bigDir}`, 'diff', '--full-index', bigShas[1], bigShas[2]], { maxBuffer: 1 << 24 })
    expect(await text(await rawPatchBetween(bigDir, bigShas[1], bigShas[2]))).toBe(expected.toString('utf8'))
    expect(await text(await rawPatchBetween(bigDir, bigShas[1], bigShas[1]))).toBe('')
    await expect(rawPatchBetween(bigDir, bigShas[1], 'f'.repeat(40))).rejects.toBeInstanceOf(GitError)
  })

  test('the patch id is git patch-id --stable of the whole patch; none for an empty one', async () => {
    const patch = execFileSync('git', [`--git-dir=${bigDir}`, 'diff-tree', '-p', '--full-index', bigShas[1], bigShas[2]], {
      maxBuffer: 1 << 24,
    })
    const expected = execFileSync('git', [`--git-dir=${bigDir}`, 'patch-id', '--stable'], { input: patch })
      .toString('utf8')
      .split(' ')[0]
    expect(await patchIdBetween(bigDir, bigShas[1], bigShas[2])).toBe(expected)
    expect(await patchIdBetween(bigDir, bigShas[1], bigShas[1])).toBeNull()
  })
})
