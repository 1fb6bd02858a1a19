import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { readBranchHead } from './branch-head.js'
import { commitEnvironment, git, GitError, type GitIdentity } from './git.js'
import { parseTree, readCommit, readObject, type TreeEntry } from './objects.js'

/** A file written (added or replaced) or removed by a commit. */
export type TreeChange = { path: string; content: string } | { path: string; remove: true }

export interface FilesCommit {
  directory: string
  branch: string
  /** Applied in order on top of the branch's tree, or of an empty tree when the branch does not exist yet. */
  changes: readonly TreeChange[]
  message: string
  author: GitIdentity
  at: Date
}

/** A commit whose files would not make a valid tree: a bad path, or a path that is both a file and a directory. */
export class InvalidTreeError extends Error {}

function treeProblem(paths: ReadonlySet<string>): string | null {
  for (const filePath of paths) {
    const segments = filePath.split('/')
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.toLowerCase() === '.git')) {
      return `invalid path ${JSON.stringify(filePath)}`
    }
    for (let i = 1; i < segments.length; i += 1) {
      const directory = segments.slice(0, i).join('/')
      if (paths.has(directory)) return `${JSON.stringify(directory)} is both a file and a directory`
    }
  }
  return null
}

/**
 * Commits several file changes as one commit: each written path is added or replaced with a regular file, each removed
 * one goes. The branch moves only if it still points where it did, so a concurrent commit fails this one instead of
 * being lost. Returns the new commit.
 */
export async function commitFiles(commit: FilesCommit): Promise<string> {
  const { directory } = commit
  const parent = await readBranchHead(directory, commit.branch)
  const listed = parent ? await git(['ls-tree', '-r', '-z', '--name-only', parent], { gitDir: directory }) : ''
  const paths = new Set(listed.split('\0').filter(Boolean))
  const changes: FileChange[] = []
  for (const change of commit.changes) {
    if ('remove' in change) {
      if (paths.delete(change.path)) changes.push({ kind: 'delete', path: change.path })
      continue
    }
    const content = Buffer.from(change.content)
    changes.push(
      paths.has(change.path)
        ? { kind: 'update', path: change.path, content }
        : { kind: 'create', path: change.path, content, executable: false },
    )
    paths.add(change.path)
  }
  const problem = treeProblem(paths)
  if (problem) throw new InvalidTreeError(problem)
  const parentTree = parent ? ((await readCommit(directory, parent))?.tree ?? null) : null
  const tree = await writeChangedTree(directory, parentTree, changes)
  const { author, at, message } = commit
  const oid = await writeCommitObject(directory, { tree, parents: parent ? [parent] : [], message, author, committer: author, at })
  if (!(await moveRefIfUnchanged(directory, `refs/heads/${commit.branch}`, oid, parent))) {
    throw new Error(`refs/heads/${commit.branch} moved while a commit was written on it`)
  }
  return oid
}

export interface InitialCommit {
  directory: string
  branch: string
  path: string
  content: string
  message: string
  author: GitIdentity
  at: Date
}

/** Commits one file onto a new branch and answers the commit; null when the branch exists already. */
export async function commitFirstFile(commit: InitialCommit): Promise<string | null> {
  const { directory, author, at, message } = commit
  const file: FileChange = { kind: 'create', path: commit.path, content: Buffer.from(commit.content), executable: false }
  const tree = await writeChangedTree(directory, null, [file])
  const oid = await writeCommitObject(directory, { tree, parents: [], message, author, committer: author, at })
  return (await moveRefIfUnchanged(directory, `refs/heads/${commit.branch}`, oid, null)) ? oid : null
}

// ----- Commits built from file actions (GL Gitaly UserCommitFiles), and ref moves that lose races cleanly -----

/** One change of a commit built from actions, in the order the client gave them. */
export type FileChange =
  | { kind: 'create'; path: string; content: Buffer; executable: boolean }
  | { kind: 'update'; path: string; content: Buffer }
  | { kind: 'move'; path: string; previousPath: string; content: Buffer | null }
  | { kind: 'delete'; path: string }
  | { kind: 'chmod'; path: string; executable: boolean }

/** An action the tree refuses, with Gitaly's index error text (GL GitalyClient::OperationService#index_error_message). */
export class FileChangeError extends Error {}

export const FILE_EXISTS = 'A file with this name already exists'
export const FILE_MISSING = "A file with this name doesn't exist"
export const DIRECTORY_EXISTS = 'A directory with this name already exists'
export const DIRECTORY_TRAVERSAL = 'Path cannot include directory traversal'
export const EMPTY_PATH = 'You must provide a file path'

/**
 * Gitaly's path checks of a commit action: an empty path, `..` escaping the repository, and paths git refuses in a
 * tree (absolute, empty or `.` segments, a `.git` segment, control characters) are errors; null when the path is good.
 */
export function filePathProblem(filePath: string): string | null {
  if (filePath === '') return EMPTY_PATH
  const segments = filePath.split('/')
  if (segments.includes('..')) return DIRECTORY_TRAVERSAL
  const invalid =
    // eslint-disable-next-line no-control-regex
    /[\0-\x1f\x7f]/.test(filePath) || segments.some((segment) => segment === '' || segment === '.' || segment.toLowerCase() === '.git')
  return invalid ? `invalid path: '${filePath}'` : null
}

interface TreeItem {
  mode: string
  oid: string
}

type PathState = { kind: 'file'; item: TreeItem } | { kind: 'tree' } | { kind: 'none' } | { kind: 'blocked' }

/**
 * The paths of a commit's tree as a sequence of actions leaves them: the parent's tree, read through the long-lived
 * object reader, under the actions' changes so far.
 */
class TreeState {
  readonly changed = new Map<string, TreeItem | null>()
  private readonly trees = new Map<string, TreeEntry[]>()

  constructor(
    private readonly directory: string,
    private readonly rootTree: string | null,
    private readonly oidLength: number,
  ) {}

  private async entries(treeOid: string): Promise<TreeEntry[]> {
    let entries = this.trees.get(treeOid)
    if (!entries) {
      const object = await readObject(this.directory, treeOid)
      entries = object?.type === 'tree' ? parseTree(object.content, this.oidLength) : []
      this.trees.set(treeOid, entries)
    }
    return entries
  }

  private changedFileUnder(filePath: string): boolean {
    const prefix = `${filePath}/`
    for (const [changedPath, item] of this.changed) if (item !== null && changedPath.startsWith(prefix)) return true
    return false
  }

  async state(filePath: string): Promise<PathState> {
    if (this.changedFileUnder(filePath)) return { kind: 'tree' }
    const segments = filePath.split('/')
    for (let i = 1; i < segments.length; i += 1) {
      const ancestor = this.changed.get(segments.slice(0, i).join('/'))
      if (ancestor) return { kind: 'blocked' }
    }
    if (this.changed.has(filePath)) {
      const item = this.changed.get(filePath)
      return item ? { kind: 'file', item } : { kind: 'none' }
    }
    if (this.rootTree === null) return { kind: 'none' }
    let tree = this.rootTree
    for (let i = 0; i < segments.length; i += 1) {
      const entry = (await this.entries(tree)).find((candidate) => candidate.name === segments[i])
      if (!entry) return { kind: 'none' }
      const here = segments.slice(0, i + 1).join('/')
      // A file of the parent removed by an earlier action is gone, whatever stood below it.
      if (this.changed.has(here) && this.changed.get(here) === null) return { kind: 'none' }
      if (i === segments.length - 1) {
        if (entry.type !== 'tree') return { kind: 'file', item: { mode: entry.mode, oid: entry.oid } }
        return (await this.keepsFiles(entry.oid, filePath)) ? { kind: 'tree' } : { kind: 'none' }
      }
      if (entry.type !== 'tree') return { kind: 'blocked' }
      tree = entry.oid
    }
    return { kind: 'none' }
  }

  /** Whether a directory of the parent still holds a file once the earlier actions' removals are applied. */
  private async keepsFiles(treeOid: string, directoryPath: string): Promise<boolean> {
    const prefix = `${directoryPath}/`
    const removedBelow = [...this.changed].some(([changedPath, item]) => item === null && changedPath.startsWith(prefix))
    if (!removedBelow) return true
    for (const entry of await this.entries(treeOid)) {
      const entryPath = `${prefix}${entry.name}`
      if (entry.type === 'tree' ? await this.keepsFiles(entry.oid, entryPath) : this.changed.get(entryPath) !== null) return true
    }
    return false
  }

  async existingFile(filePath: string): Promise<TreeItem> {
    const state = await this.state(filePath)
    if (state.kind !== 'file') throw new FileChangeError(FILE_MISSING)
    return state.item
  }

  async assertFree(filePath: string): Promise<void> {
    const state = await this.state(filePath)
    if (state.kind === 'file' || state.kind === 'blocked') throw new FileChangeError(FILE_EXISTS)
    if (state.kind === 'tree') throw new FileChangeError(DIRECTORY_EXISTS)
  }
}

const REGULAR = '100644'
const EXECUTABLE = '100755'

function objectIdLength(oid: string | null, objectFormat: string): number {
  if (oid) return oid.length
  return objectFormat === 'sha256' ? 64 : 40
}

/** The repository's object format, read from its configuration once per directory. */
async function objectFormatOf(directory: string): Promise<string> {
  return (await git(['rev-parse', '--show-object-format'], { gitDir: directory })).trim()
}

/**
 * Writes the tree `changes` make of `parentTree` (null: an empty tree) with a temporary index, never a working tree,
 * and answers it. Throws FileChangeError, with Gitaly's words, for an action the tree refuses.
 */
export async function writeChangedTree(directory: string, parentTree: string | null, changes: readonly FileChange[]): Promise<string> {
  for (const change of changes) {
    for (const filePath of change.kind === 'move' ? [change.previousPath, change.path] : [change.path]) {
      const problem = filePathProblem(filePath)
      if (problem) throw new FileChangeError(problem)
    }
  }
  const objectFormat = await objectFormatOf(directory)
  const state = new TreeState(directory, parentTree, objectIdLength(parentTree, objectFormat))
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-commit-'))
  try {
    // Contents are written to files first so that one hash-object stores every blob.
    const contents: Buffer[] = []
    // Each written item waits for its blob's id; an item a later action replaced is simply left out of the tree.
    const pending: { item: TreeItem; content: number }[] = []
    const write = (filePath: string, mode: string, content: Buffer) => {
      contents.push(content)
      const item = { mode, oid: '' }
      pending.push({ item, content: contents.length - 1 })
      state.changed.set(filePath, item)
    }
    for (const change of changes) {
      switch (change.kind) {
        case 'create':
          await state.assertFree(change.path)
          write(change.path, change.executable ? EXECUTABLE : REGULAR, change.content)
          break
        case 'update':
          write(change.path, (await state.existingFile(change.path)).mode, change.content)
          break
        case 'move': {
          const item = await state.existingFile(change.previousPath)
          if (change.previousPath !== change.path) await state.assertFree(change.path)
          state.changed.set(change.previousPath, null)
          // No content keeps the moved file's (GL Files::MultiService `infer_content`).
          if (change.content === null) state.changed.set(change.path, item)
          else write(change.path, item.mode, change.content)
          break
        }
        case 'delete':
          await state.existingFile(change.path)
          state.changed.set(change.path, null)
          break
        case 'chmod': {
          const item = await state.existingFile(change.path)
          // A symbolic link or a submodule keeps its mode.
          if (item.mode === REGULAR || item.mode === EXECUTABLE) item.mode = change.executable ? EXECUTABLE : REGULAR
          state.changed.set(change.path, item)
          break
        }
      }
    }
    if (contents.length > 0) {
      // Contents go to files first so that one hash-object stores every blob.
      const files = await Promise.all(
        contents.map(async (content, index) => {
          const file = path.join(scratch, `blob-${index}`)
          await fs.writeFile(file, content)
          return file
        }),
      )
      const input = `${files.join('\n')}\n`
      const oids = (await git(['hash-object', '-w', '--no-filters', '--stdin-paths'], { gitDir: directory, input })).trim().split('\n')
      for (const { item, content } of pending) item.oid = oids[content]
    }
    const env = { GIT_INDEX_FILE: path.join(scratch, 'index') }
    await git(parentTree ? ['read-tree', parentTree] : ['read-tree', '--empty'], { gitDir: directory, env })
    const zero = '0'.repeat(objectIdLength(parentTree, objectFormat))
    // Removals first, so that a path may turn from a file into a directory (or back) in one commit; mode 0 removes.
    const removals: string[] = []
    const additions: string[] = []
    for (const [filePath, item] of state.changed) {
      if (item === null) removals.push(`0 ${zero}\t${filePath}\0`)
      else additions.push(`${item.mode} ${item.oid}\t${filePath}\0`)
    }
    if (removals.length + additions.length > 0) {
      await git(['update-index', '-z', '--index-info'], { gitDir: directory, env, input: [...removals, ...additions].join('') })
    }
    return (await git(['write-tree'], { gitDir: directory, env })).trim()
  } finally {
    await fs.rm(scratch, { recursive: true, force: true })
  }
}

export interface NewCommitObject {
  tree: string
  parents: readonly string[]
  message: string
  author: GitIdentity
  committer: GitIdentity
  at: Date
}

/** Writes a commit object, the message kept byte for byte (no paragraph handling), and answers its id; no ref moves. */
export async function writeCommitObject(directory: string, commit: NewCommitObject): Promise<string> {
  const env = commitEnvironment(commit.author, commit.committer, commit.at)
  const parents = commit.parents.flatMap((parent) => ['-p', parent])
  return (await git(['commit-tree', commit.tree, ...parents], { gitDir: directory, env, input: commit.message })).trim()
}

/**
 * Moves `ref` to `newOid` only if it still points at `oldOid` (null: only if it does not exist yet), in one
 * `update-ref`, so that a concurrent change is never lost: answers false when another change came first.
 */
export async function moveRefIfUnchanged(directory: string, ref: string, newOid: string, oldOid: string | null): Promise<boolean> {
  try {
    await git(['update-ref', ref, newOid, oldOid ?? ''], { gitDir: directory })
    return true
  } catch (error) {
    if (error instanceof GitError) return false
    throw error
  }
}

/**
 * The tree of a three-way merge of `ours` and `theirs` over `base` (trees; a null base is the empty tree), as a
 * cherry-pick or a revert makes it, written without a working tree; null when it conflicts. A null `theirs` is the
 * empty tree too. git 2.39's merge-tree
 * takes no merge base, so the three trees are given a history whose only merge base is `base`: commits that no ref
 * names, which gc collects.
 */
export async function mergeTrees(directory: string, base: string | null, ours: string, theirs: string | null): Promise<string | null> {
  const identity = { name: 'svc', email: 'svc@localhost' }
  // git refuses the epoch itself as a date.
  const at = new Date('2000-01-01T00:00:00Z')
  const empty = base === null || theirs === null ? (await git(['mktree'], { gitDir: directory, input: '' })).trim() : ''
  const baseTree = base ?? empty
  const baseCommit = await writeCommitObject(directory, {
    tree: baseTree,
    parents: [],
    message: 'base',
    author: identity,
    committer: identity,
    at,
  })
  const [oursCommit, theirsCommit] = await Promise.all([
    writeCommitObject(directory, { tree: ours, parents: [baseCommit], message: 'ours', author: identity, committer: identity, at }),
    writeCommitObject(directory, {
      tree: theirs ?? empty,
      parents: [baseCommit],
      message: 'theirs',
      author: identity,
      committer: identity,
      at,
    }),
  ])
  try {
    return (await git(['merge-tree', '--write-tree', '--no-messages', oursCommit, theirsCommit], { gitDir: directory }))
      .split('\n')[0]
      .trim()
  } catch (error) {
    // Exit 1 is a conflicted merge.
    if (error instanceof GitError && error.code === 1) return null
    throw error
  }
}
