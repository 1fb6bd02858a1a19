import { repositoryExists } from './files.js'
import { isClientRevision, parseTree, readCommit, readObject, readObjectHeader, type ParsedCommit, type TreeEntry } from './objects.js'

// An object's content never changes, so parsed commits and trees are kept by object id and never go stale: a file or
// tree read at a ref resolves the ref in git (refs move) and then walks kept trees, asking git only for what it has
// not parsed yet.

/** Parsed commits kept. */
const COMMITS_KEPT = 2048
/** Parsed trees kept, counted in entries (one tree may hold thousands). */
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
 * A read of the repository at `directory`, or null when there is no repository on disk (as a repository that does not
 * exist reads in GitLab: nothing there). Checked only when the read fails, so a read that works costs nothing more.
 */
export async function unlessRepositoryMissing<T>(directory: string, read: () => Promise<T | null>): Promise<T | null> {
  try {
    return await read()
  } catch (error) {
    if (!(await repositoryExists(directory))) return null
    throw error
  }
}

/**
 * The commit a client's revision names, as GL `project.commit(ref)` finds it (branch, tag, object id or another
 * revision Gitaly accepts); null when there is none, or no repository. The revision is resolved in the repository
 * every time; the commit it names is parsed once.
 */
export async function findCommit(directory: string, revision: string): Promise<ParsedCommit | null> {
  if (!isClientRevision(revision)) return null
  const header = await unlessRepositoryMissing(directory, () => readObjectHeader(directory, `${revision}^{commit}`))
  if (header?.type !== 'commit') return null
  const kept = recall(parsedCommits, header.oid)
  if (kept) return kept
  const commit = await readCommit(directory, header.oid)
  return commit ? keepCommit(commit) : null
}

/** The entries of a tree object (reached from one of the repository's commits), read through its long-lived cat-file. */
export async function readTreeEntries(directory: string, oid: string): Promise<TreeEntry[]> {
  const kept = recall(parsedTrees, oid)
  if (kept) return kept
  const object = await readObject(directory, oid)
  if (!object || object.type !== 'tree') throw new Error(`tree ${oid} is missing`)
  return keepTree(oid, parseTree(object.content, oid.length))
}

/** The entry a path (as segments) names under a tree; null when there is none. */
export async function findTreeEntry(directory: string, treeOid: string, segments: readonly string[]): Promise<TreeEntry | null> {
  let entry: TreeEntry = { mode: '40000', type: 'tree', oid: treeOid, name: '' }
  for (const segment of segments) {
    if (entry.type !== 'tree') return null
    const found = (await readTreeEntries(directory, entry.oid)).find((candidate) => candidate.name === segment)
    if (!found) return null
    entry = found
  }
  return entry
}
