import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { GitClient } from '../../testing/git.js'
import {
  FileChangeError,
  filePathProblem,
  mergeTrees,
  moveRefIfUnchanged,
  writeChangedTree,
  writeCommitObject,
  type FileChange,
} from './commit.js'
import { closeObjectReader } from './objects.js'

const gitClient = new GitClient()
const directory = path.join(gitClient.workDir, 'commit.git')
const person = { name: 'Tess', email: 'tess@example.com' }
const at = new Date('2026-11-27T10:00:00Z')
const text = (value: string) => Buffer.from(value)

beforeAll(async () => {
  await gitClient.ok(gitClient.workDir, 'init', '-q', '--bare', '--initial-branch=main', directory)
})

afterAll(() => {
  closeObjectReader(directory)
  gitClient.remove()
})

const run = (...args: string[]) => gitClient.ok(gitClient.workDir, `--git-dir=${directory}`, ...args)

async function listing(tree: string): Promise<string[]> {
  return (await run('ls-tree', '-r', '--format=%(objectmode) %(path)', tree)).trim().split('\n').filter(Boolean)
}

async function commitTree(parentTree: string | null, changes: FileChange[]): Promise<string> {
  return writeChangedTree(directory, parentTree, changes)
}

describe('trees written from file actions', () => {
  test('every action kind, applied in order, with modes kept or set', async () => {
    const first = await commitTree(null, [
      { kind: 'create', path: 'a/b.txt', content: text('b'), executable: false },
      { kind: 'create', path: 'run.sh', content: text('run'), executable: true },
      { kind: 'create', path: 'gone.txt', content: text('x'), executable: false },
    ])
    expect(await listing(first)).toEqual(['100644 a/b.txt', '100644 gone.txt', '100755 run.sh'])
    const second = await commitTree(first, [
      { kind: 'update', path: 'run.sh', content: text('run2') },
      { kind: 'move', path: 'c/moved.txt', previousPath: 'a/b.txt', content: null },
      { kind: 'delete', path: 'gone.txt' },
      { kind: 'chmod', path: 'run.sh', executable: false },
      { kind: 'create', path: 'a', content: text('a is a file now'), executable: false },
    ])
    expect(await listing(second)).toEqual(['100644 a', '100644 c/moved.txt', '100644 run.sh'])
    expect(await run('cat-file', 'blob', `${second}:c/moved.txt`)).toBe('b')
    expect(await run('cat-file', 'blob', `${second}:run.sh`)).toBe('run2')
  })

  test("refusals in Gitaly's words", async () => {
    const base = await commitTree(null, [{ kind: 'create', path: 'dir/file', content: text('f'), executable: false }])
    const refusal = (changes: FileChange[]) =>
      commitTree(base, changes).then(
        () => 'written',
        (error: Error) => [error.constructor, error.message],
      )
    expect(await refusal([{ kind: 'create', path: 'dir/file', content: text('x'), executable: false }])).toEqual([
      FileChangeError,
      'A file with this name already exists',
    ])
    expect(await refusal([{ kind: 'create', path: 'dir', content: text('x'), executable: false }])).toEqual([
      FileChangeError,
      'A directory with this name already exists',
    ])
    expect(await refusal([{ kind: 'update', path: 'dir', content: text('x') }])).toEqual([
      FileChangeError,
      "A file with this name doesn't exist",
    ])
    expect(await refusal([{ kind: 'delete', path: 'nope' }])).toEqual([FileChangeError, "A file with this name doesn't exist"])
    expect(await refusal([{ kind: 'create', path: 'x/../../y', content: text('x'), executable: false }])).toEqual([
      FileChangeError,
      'Path cannot include directory traversal',
    ])
  })

  test('path checks', () => {
    expect(filePathProblem('')).toBe('You must provide a file path')
    expect(filePathProblem('a/../b')).toBe('Path cannot include directory traversal')
    expect(filePathProblem('.git/config')).toBe("invalid path: '.git/config'")
    expect(filePathProblem('a/.Git')).toBe("invalid path: 'a/.Git'")
    expect(filePathProblem('/abs')).toBe("invalid path: '/abs'")
    expect(filePathProblem('a/./b')).toBe("invalid path: 'a/./b'")
    expect(filePathProblem('a\nb')).toBe("invalid path: 'a\nb'")
    expect(filePathProblem('.gitignore')).toBeNull()
    expect(filePathProblem('dir with spaces/ünïcode.txt')).toBeNull()
  })
})

describe('ref moves and merges', () => {
  test('a ref moves only from the value it was read at: the second of two writers loses', async () => {
    const tree = await commitTree(null, [{ kind: 'create', path: 'f', content: text('1'), executable: false }])
    const root = await writeCommitObject(directory, { tree, parents: [], message: 'Root', author: person, committer: person, at })
    expect(await moveRefIfUnchanged(directory, 'refs/heads/race', root, null)).toBe(true)
    expect(await moveRefIfUnchanged(directory, 'refs/heads/race', root, null)).toBe(false)
    const one = await writeCommitObject(directory, { tree, parents: [root], message: 'One', author: person, committer: person, at })
    const two = await writeCommitObject(directory, { tree, parents: [root], message: 'Two', author: person, committer: person, at })
    expect(await moveRefIfUnchanged(directory, 'refs/heads/race', one, root)).toBe(true)
    expect(await moveRefIfUnchanged(directory, 'refs/heads/race', two, root)).toBe(false)
    expect((await run('rev-parse', 'refs/heads/race')).trim()).toBe(one)
    expect(await run('cat-file', 'commit', one)).toContain('\n\nOne')
    expect((await run('cat-file', 'commit', one)).endsWith('One')).toBe(true)
  })

  test('three-way merges over a given base: clean, conflicting, and against the empty tree', async () => {
    const base = await commitTree(null, [{ kind: 'create', path: 'f', content: text('a\nb\nc\n'), executable: false }])
    const ours = await commitTree(base, [{ kind: 'update', path: 'f', content: text('A\nb\nc\n') }])
    const theirs = await commitTree(base, [{ kind: 'update', path: 'f', content: text('a\nb\nC\n') }])
    const clash = await commitTree(base, [{ kind: 'update', path: 'f', content: text('X\nb\nc\n') }])
    const merged = await mergeTrees(directory, base, ours, theirs)
    expect(await run('cat-file', 'blob', `${merged}:f`)).toBe('A\nb\nC\n')
    expect(await mergeTrees(directory, base, ours, clash)).toBeNull()
    const added = await commitTree(null, [{ kind: 'create', path: 'new', content: text('n'), executable: false }])
    expect(await listing((await mergeTrees(directory, null, ours, added)) as string)).toEqual(['100644 f', '100644 new'])
  })
})
