import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import {
  git,
  isWellFormedRef,
  readmeAt,
  readRepositoryState,
  repositoryExists,
  syncPath,
  type RepositoryState,
} from '../repositories/index.js'

/** What a fork's repository is made from. */
export interface ForkCopy {
  /** The source's bare repository. */
  source: string
  /** Where the fork's repository goes; it appears there complete or not at all. */
  target: string
  /** Hard-link the object files (same storage): near constant time, and the fork keeps them when the source goes. */
  link: boolean
  /** Only this branch; HEAD names it. */
  branch: string | null
  /** The source's HEAD branch and object format, for a source without a repository yet. */
  defaultBranch: string
  objectFormat: string
  signal?: AbortSignal
  /** Settled before anything is written at the target (the record that the copy started); a rejection fails the copy. */
  started?: Promise<unknown>
}

/** The fork's repository, and what its project entity shows of it. */
export interface ForkedRepository {
  /** `existing`: an earlier run had made it. */
  outcome: 'copied' | 'existing'
  state: RepositoryState
}

/** The source branch a fork asked for does not exist (any more). */
export class SourceBranchMissing extends Error {}

/** Names of staging directories beside a target: `<target>.fork-<random>`. */
function stagingPrefix(target: string): string {
  return `${path.basename(target)}.fork-`
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT'
}

/** A concurrent repack or prune removed a file while it was being linked: the copy starts over from new refs. */
class SourceChanged extends Error {}

interface Snapshot {
  head: string
  refs: { name: string; oid: string }[]
}

/** The refs the fork gets, read before any object is copied, so every object they name is among those copied. */
async function readSnapshot(copy: ForkCopy): Promise<Snapshot> {
  if (!(await repositoryExists(copy.source))) return { head: copy.branch ?? copy.defaultBranch, refs: [] }
  const gitDir = copy.source
  const refs = ((await readRefFiles(gitDir, copy.branch === null ? ['refs/heads', 'refs/tags'] : ['refs/heads'])) ?? (await listRefs(copy)))
    // A pattern matches as a prefix of whole components; a branch must match exactly.
    .filter((ref) => copy.branch === null || ref.name === `refs/heads/${copy.branch}`)
  if (copy.branch !== null) {
    if (refs.length === 0) throw new SourceBranchMissing(`Source branch ${copy.branch} not found`)
    return { head: copy.branch, refs }
  }
  const head = await readHead(gitDir).catch(() => copy.defaultBranch)
  return { head: head || copy.defaultBranch, refs }
}

/** The refs a fork gets, as git lists them. */
async function listRefs(copy: ForkCopy): Promise<Snapshot['refs']> {
  const patterns = copy.branch === null ? ['refs/heads/', 'refs/tags/'] : [`refs/heads/${copy.branch}`]
  const listing = await git(['for-each-ref', '--format=%(objectname) %(refname)', ...patterns], { gitDir: copy.source })
  return listing
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => ({ oid: line.slice(0, line.indexOf(' ')), name: line.slice(line.indexOf(' ') + 1) }))
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/
/** A ref name as git writes one (git check-ref-format), no more: anything else is left to git. */
function isPlainRefName(name: string): boolean {
  return name.startsWith('refs/') && isWellFormedRef(name)
}

/**
 * The refs under `roots` (e.g. refs/heads) read from the files git keeps them in, without a process: loose refs, then
 * packed-refs (git's order, so a concurrent pack-refs loses none), a loose ref overriding a packed one. Null when
 * anything is not as git writes a plain ref (a reftable repository, a symbolic ref, an unusual name, a directory that
 * changes while read): git lists them then.
 */
async function readRefFiles(gitDir: string, roots: string[]): Promise<Snapshot['refs'] | null> {
  try {
    if (
      await fs.stat(path.join(gitDir, 'reftable')).then(
        () => true,
        (error: unknown) => !isMissing(error),
      )
    )
      return null
    const refs = new Map<string, string>()
    const walk = async (name: string): Promise<boolean> => {
      for (const entry of await fs.readdir(path.join(gitDir, name), { withFileTypes: true })) {
        const child = `${name}/${entry.name}`
        if (entry.isDirectory()) {
          if (!(await walk(child))) return false
          continue
        }
        // A lock is a ref being written: its old value stands.
        if (entry.isFile() && entry.name.endsWith('.lock')) continue
        if (!entry.isFile() || !isPlainRefName(child)) return false
        let text: string
        try {
          text = await fs.readFile(path.join(gitDir, child), 'utf8')
        } catch (error) {
          // Deleted, or packed since listed (packed-refs, read next, has it).
          if (isMissing(error)) continue
          throw error
        }
        const oid = text.endsWith('\n') ? text.slice(0, -1) : text
        if (!OBJECT_ID.test(oid)) return false
        refs.set(child, oid)
      }
      return true
    }
    for (const root of roots) if (!(await walk(root))) return null
    let packed = ''
    try {
      packed = await fs.readFile(path.join(gitDir, 'packed-refs'), 'utf8')
    } catch (error) {
      if (!isMissing(error)) throw error
    }
    for (const line of packed.split('\n')) {
      if (line === '' || line.startsWith('#') || line.startsWith('^')) continue
      const space = line.indexOf(' ')
      const [oid, name] = [line.slice(0, space), line.slice(space + 1)]
      if (!OBJECT_ID.test(oid) || !isPlainRefName(name)) return null
      if (roots.some((root) => name.startsWith(`${root}/`)) && !refs.has(name)) refs.set(name, oid)
    }
    return [...refs].map(([name, oid]) => ({ name, oid }))
  } catch {
    return null
  }
}

/** The branch a repository's HEAD names: its HEAD file as git writes it, else as git reads it. */
async function readHead(gitDir: string): Promise<string> {
  const text = await fs.readFile(path.join(gitDir, 'HEAD'), 'utf8')
  const named = /^ref: refs\/heads\/([^\s]+)\n?$/.exec(text)
  if (named) return named[1]
  return (await git(['symbolic-ref', '--short', 'HEAD'], { gitDir })).trim()
}

/**
 * What the fork's project entity shows (as readRepositoryState reads it), from the snapshot the fork is made of: the
 * README comes from the HEAD branch's commit, read in the source while the objects are copied (objects never change).
 */
function snapshotState(copy: ForkCopy, snapshot: Snapshot): Promise<RepositoryState> {
  const emptyRepo = !snapshot.refs.some((ref) => ref.name.startsWith('refs/heads/'))
  const headRef = snapshot.refs.find((ref) => ref.name === `refs/heads/${snapshot.head}`)
  const state = (headRef ? readmeAt(copy.source, headRef.oid) : Promise.resolve(null)).then((readmePath) => ({
    emptyRepo,
    defaultBranch: snapshot.head,
    readmePath,
  }))
  // Awaited once the copy is done; a copy that fails first leaves it unread.
  state.catch(() => {})
  return state
}

/** Files a writer has not finished (git writes under tmp_ names, pushes under quarantine directories, then renames). */
function isUnfinished(name: string): boolean {
  return name.startsWith('tmp_') || name.startsWith('incoming-') || name.startsWith('tmp_objdir')
}

/**
 * Mirrors the object store file by file: hard links on one storage, copies (reflinks where the file system can) otherwise.
 * Answers what it wrote that needs flushing: copied files and every directory; a linked file's data is the source's.
 */
async function copyObjects(from: string, to: string, link: boolean, written: string[], signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted()
  let entries
  try {
    entries = await fs.readdir(from, { withFileTypes: true })
  } catch (error) {
    if (isMissing(error)) throw new SourceChanged()
    throw error
  }
  await fs.mkdir(to, { recursive: true })
  written.push(to)
  // A pack counts once its index is in place: git renames the .idx last.
  const indexed = new Set(entries.filter((e) => e.name.endsWith('.idx')).map((e) => e.name.slice(0, -'.idx'.length)))
  // Entries go concurrently: the disk, not one round trip per file, sets the pace. All settle before a failure is
  // answered, so nothing is still writing into the staging directory when it is removed.
  const outcomes = await Promise.allSettled(
    entries.map(async (entry) => {
      if (isUnfinished(entry.name)) return
      const source = path.join(from, entry.name)
      const target = path.join(to, entry.name)
      if (entry.isDirectory()) return copyObjects(source, target, link, written, signal)
      if (!entry.isFile()) return
      const pack = /^(pack-[0-9a-f]+)\.(pack|rev|bitmap|keep|promisor|mtimes)$/.exec(entry.name)
      if (pack && !indexed.has(pack[1])) return
      signal?.throwIfAborted()
      try {
        // The alternates file is rewritten in place by git, so it is copied, never shared.
        if (link && entry.name !== 'alternates') {
          await fs.link(source, target)
        } else {
          await fs.copyFile(source, target, constants.COPYFILE_FICLONE)
          written.push(target)
        }
      } catch (error) {
        if (isMissing(error)) throw new SourceChanged()
        throw error
      }
    }),
  )
  const failure = outcomes.find((outcome) => outcome.status === 'rejected')
  if (failure) throw failure.reason
}

/** What `git init --bare` writes that a repository needs, without its sample hooks (GL repositories have none either). */
function configText(objectFormat: string): string {
  if (objectFormat !== 'sha256') return '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n'
  return '[core]\n\trepositoryformatversion = 1\n\tfilemode = true\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n'
}

/** Refs as `git pack-refs` writes them, sorted by name. */
function packedRefsText(refs: Snapshot['refs']): string {
  const sorted = [...refs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return `# pack-refs with: sorted \n${sorted.map((ref) => `${ref.oid} ${ref.name}\n`).join('')}`
}

/**
 * Builds the fork in `staging`: the repository's skeleton, the source's objects, then the snapshot's refs and HEAD,
 * written as git writes them (two processes for the whole copy: the snapshot, and the README beside the copy). Flushes
 * what it wrote; answers the fork's repository state.
 */
async function assemble(copy: ForkCopy, staging: string): Promise<RepositoryState> {
  const snapshot = await readSnapshot(copy)
  const state = snapshotState(copy, snapshot)
  await copy.started
  const written: string[] = []
  for (const directory of ['refs/heads', 'refs/tags', 'objects/info', 'objects/pack']) {
    await fs.mkdir(path.join(staging, directory), { recursive: true })
  }
  written.push(path.join(staging, 'refs/heads'), path.join(staging, 'refs/tags'), path.join(staging, 'refs'))
  if (snapshot.refs.length > 0) {
    await copyObjects(path.join(copy.source, 'objects'), path.join(staging, 'objects'), copy.link, written, copy.signal)
    copy.signal?.throwIfAborted()
  }
  const files: [string, string][] = [
    ['config', configText(copy.objectFormat)],
    ['packed-refs', packedRefsText(snapshot.refs)],
    ['HEAD', `ref: refs/heads/${snapshot.head}\n`],
  ]
  await Promise.all(files.map(([name, text]) => fs.writeFile(path.join(staging, name), text)))
  written.push(...files.map(([name]) => path.join(staging, name)))
  written.push(path.join(staging, 'objects/info'), path.join(staging, 'objects/pack'), path.join(staging, 'objects'), staging)
  // Flushed together: one wait for the disk instead of one per file.
  await Promise.all(written.map((file) => syncPath(file)))
  return await state
}

/**
 * Makes the fork's repository from the source (GL RepositoryForkWorker, Gitaly CreateFork): assembled in a staging
 * directory beside the target, flushed, then renamed into place, so a run killed at any point leaves either nothing
 * at the target (the next run starts over and removes the leftovers) or the complete repository (the next run keeps it).
 */
export async function copyRepositoryForFork(copy: ForkCopy): Promise<ForkedRepository> {
  if (await repositoryExists(copy.target)) return { outcome: 'existing', state: await readRepositoryState(copy.target) }
  const parent = path.dirname(copy.target)
  await fs.mkdir(parent, { recursive: true })
  const prefix = stagingPrefix(copy.target)
  for (const name of await fs.readdir(parent)) {
    if (name.startsWith(prefix)) await fs.rm(path.join(parent, name), { recursive: true, force: true })
  }
  for (let attempt = 1; ; attempt++) {
    const staging = path.join(parent, `${prefix}${randomBytes(6).toString('hex')}`)
    try {
      const state = await assemble(copy, staging)
      copy.signal?.throwIfAborted()
      try {
        await fs.rename(staging, copy.target)
      } catch (error) {
        // Another run finished first: its repository stays.
        if (await repositoryExists(copy.target)) {
          await fs.rm(staging, { recursive: true, force: true })
          return { outcome: 'existing', state: await readRepositoryState(copy.target) }
        }
        throw error
      }
      await syncPath(parent)
      return { outcome: 'copied', state }
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => {})
      if (error instanceof SourceChanged && attempt < 5) continue
      throw error
    }
  }
}
