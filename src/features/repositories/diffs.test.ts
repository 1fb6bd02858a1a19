import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { diffBetween, diffStats, rawPatchBetween, unifiedDiffOf } from './diffs.js'
import { git } from './git.js'

let work: string
let gitDir: string
const shas: string[] = []

async function commitAll(message: string): Promise<string> {
  const env = {
    GIT_WORK_TREE: work,
    GIT_AUTHOR_NAME: 'A',
    GIT_AUTHOR_EMAIL: 'a@example.com',
    GIT_COMMITTER_NAME: 'A',
    GIT_COMMITTER_EMAIL: 'a@example.com',
  }
  await git(['add', '-A'], { gitDir, env })
  await git(['commit', '--quiet', '--allow-empty', '-m', message], { gitDir, env })
  return (await git(['rev-parse', 'HEAD'], { gitDir })).trim()
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-diffs-'))
  gitDir = path.join(work, '.git')
  await git(['init', '--quiet', '--initial-branch=main', work])
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
    const patch = (await rawPatchBetween(gitDir, shas[0], shas[1])).toString('utf8')
    expect(patch.startsWith('diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..')).toBe(
      true,
    )
  })
})
