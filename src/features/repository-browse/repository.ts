import type { Context } from '../../core/context.js'
import type { LoadedProject } from '../access/index.js'
import {
  isClientRevision,
  parseTree,
  codeDirectory,
  readCommit,
  readObject,
  readObjectHeader,
  repositoryExists,
  type ParsedCommit,
  type TreeEntry,
} from '../repositories/index.js'

/** A project's repository as the browse endpoints read it. */
export interface BrowsedRepository {
  loaded: LoadedProject
  directory: string
}

/** GL `authorize_read_code!`: a project the caller sees but whose code it may not read answers 403. */
export function openRepository(ctx: Context, loaded: LoadedProject): BrowsedRepository {
  return { loaded, directory: codeDirectory(ctx, loaded) }
}

/** The ref a request names, or the project's default branch (GL `params[:ref] || user_project.default_branch`). */
export function refOrDefault(repository: BrowsedRepository, ref: string | undefined): string {
  return ref ?? repository.loaded.project.default_branch ?? 'HEAD'
}

/** Parsed commits kept, by object id: an object's content never changes, so they never go stale. */
const COMMITS_KEPT = 2048
/** Parsed trees kept, counted in entries (one tree may hold thousands), by object id. */
const TREE_ENTRIES_KEPT = 200_000
const parsedCommits = new Map<string, ParsedCommit>()
const parsedTrees = new Map<string, TreeEntry[]>()
let treeEntriesKept = 0

/** A kept value, made the most recently used. */
function recall<T>(cache: Map<string, T>, key: string): T | undefined {
  const value = cache.get(key)
  if (value !== undefined) {
    cache.delete(key)
    cache.set(key, value)
  }
  return value
}

function keepCommit(commit: ParsedCommit): ParsedCommit {
  if (parsedCommits.size >= COMMITS_KEPT) parsedCommits.delete(parsedCommits.keys().next().value as string)
  parsedCommits.set(commit.oid, commit)
  return commit
}

function keepTree(oid: string, entries: TreeEntry[]): TreeEntry[] {
  if (entries.length > TREE_ENTRIES_KEPT) return entries
  for (const [kept, keptEntries] of parsedTrees) {
    if (treeEntriesKept + entries.length <= TREE_ENTRIES_KEPT) break
    parsedTrees.delete(kept)
    treeEntriesKept -= keptEntries.length
  }
  parsedTrees.set(oid, entries)
  treeEntriesKept += entries.length
  return entries
}

/**
 * A read of the repository, or null when it has no repository on disk (as a repository that does not exist reads in
 * GitLab: nothing there). Checked only when the read fails, so a read that works costs nothing more.
 */
export async function readIfPresent<T>(repository: BrowsedRepository, read: () => Promise<T | null>): Promise<T | null> {
  try {
    return await read()
  } catch (error) {
    if (!(await repositoryExists(repository.directory))) return null
    throw error
  }
}

/**
 * The commit a revision names, as GL `project.commit(ref)` finds it (branch, tag, object id or another revision
 * Gitaly accepts); null when there is none. The revision is resolved in the repository every time (refs move);
 * the commit it names is parsed once.
 */
export async function findCommit(repository: BrowsedRepository, revision: string): Promise<ParsedCommit | null> {
  if (!isClientRevision(revision)) return null
  const header = await readIfPresent(repository, () => readObjectHeader(repository.directory, `${revision}^{commit}`))
  if (header?.type !== 'commit') return null
  const kept = recall(parsedCommits, header.oid)
  if (kept) return kept
  const commit = await readCommit(repository.directory, header.oid)
  return commit ? keepCommit(commit) : null
}

/** The entries of a tree object (reached from one of the repository's commits), read through its long-lived cat-file. */
export async function readTreeEntries(repository: BrowsedRepository, oid: string): Promise<TreeEntry[]> {
  const kept = recall(parsedTrees, oid)
  if (kept) return kept
  const object = await readObject(repository.directory, oid)
  if (!object || object.type !== 'tree') throw new Error(`tree ${oid} is missing`)
  return keepTree(oid, parseTree(object.content, oid.length))
}

/**
 * The segments of a path inside the repository, or null when it cannot name anything there: absolute, with `.`
 * or `..` or empty segments, or a NUL. `''`, `.` and `/`-less root forms name the root (no segments).
 */
export function pathSegments(path: string | undefined): string[] | null {
  if (path === undefined || path === '' || path === '.') return []
  if (path.includes('\0') || path.startsWith('/')) return null
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path
  const segments = trimmed.split('/')
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null
  return segments
}

/** The entry a path names under a tree; null when there is none. */
export async function findTreeEntry(repository: BrowsedRepository, treeOid: string, segments: string[]): Promise<TreeEntry | null> {
  let entry: TreeEntry = { mode: '40000', type: 'tree', oid: treeOid, name: '' }
  for (const segment of segments) {
    if (entry.type !== 'tree') return null
    const found = (await readTreeEntries(repository, entry.oid)).find((candidate) => candidate.name === segment)
    if (!found) return null
    entry = found
  }
  return entry
}
