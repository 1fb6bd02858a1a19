import fs from 'node:fs/promises'
import path from 'node:path'
import { git } from '../repositories/index.js'

/** A repository as the manifest records it: where it lives, and how to make it again. */
export interface RepositoryEntry {
  storage: string
  /** Relative to the storage's directory, e.g. `@hashed/6b/86/6b86….git`. */
  path: string
  objectFormat: 'sha1' | 'sha256'
  /** What HEAD holds: `ref: refs/heads/main`, or an object id when detached. */
  head: string
  /** How many refs the bundle holds; 0 for an empty repository, which has no bundle. */
  refs: number
  /** The bundle's name in the archive; null for an empty repository. */
  bundle: string | null
}

/** Every layout GitLab uses names a repository's directory `….git` (wikis `….wiki.git`); other directories hold them. */
function isRepositoryDirectory(name: string): boolean {
  return name.endsWith('.git')
}

/**
 * Every bare repository under a storage's directory (GitLab's hashed layout: `@hashed/`, `@snippets/`, `@groups/`),
 * as paths relative to it, sorted. A storage that does not exist yet holds none.
 */
export async function listRepositories(root: string): Promise<string[]> {
  const found: string[] = []
  async function walk(relative: string) {
    let entries
    try {
      entries = await fs.readdir(path.join(root, relative), { withFileTypes: true })
    } catch (error) {
      // Removed while the walk went on (a project deleted during the backup), or no storage yet.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (isRepositoryDirectory(entry.name)) found.push(child)
      else await walk(child)
    }
  }
  await walk('')
  return found.sort()
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT'
}

async function readObjectFormat(directory: string): Promise<'sha1' | 'sha256'> {
  const config = await fs.readFile(path.join(directory, 'config'), 'utf8')
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 'sha256' : 'sha1'
}

/** The skeleton of a repository that borrows every object of `source` (alternates) and holds exactly `refs`. */
async function writeSnapshotRepository(
  snapshot: string,
  source: string,
  objectFormat: string,
  refs: { oid: string; name: string }[],
): Promise<void> {
  await fs.mkdir(path.join(snapshot, 'objects', 'info'), { recursive: true })
  await fs.mkdir(path.join(snapshot, 'refs'), { recursive: true })
  const sorted = [...refs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  await Promise.all([
    fs.writeFile(path.join(snapshot, 'config'), configText(objectFormat)),
    // HEAD names a ref the bundle leaves out when it does not exist; the manifest keeps the real HEAD.
    fs.writeFile(path.join(snapshot, 'HEAD'), 'ref: refs/heads/main\n'),
    fs.writeFile(path.join(snapshot, 'objects', 'info', 'alternates'), `${path.resolve(source, 'objects')}\n`),
    fs.writeFile(path.join(snapshot, 'packed-refs'), `# pack-refs with: sorted \n${sorted.map((r) => `${r.oid} ${r.name}\n`).join('')}`),
  ])
}

/**
 * Bundles a repository as its refs were at one instant: the refs are read first (`git for-each-ref`), then a
 * snapshot repository holding exactly those refs, over the repository's own objects, is bundled; a push meanwhile
 * moves the live refs but not these, and objects a ref reached are never pruned at once. Answers null when the
 * repository went away before it was read (deleted during the backup, or not finished being created).
 */
export async function bundleRepository(
  storage: string,
  root: string,
  relative: string,
  bundleFile: string,
  bundleName: string,
  scratch: string,
): Promise<RepositoryEntry | null> {
  const directory = path.join(root, relative)
  let head: string
  let objectFormat: 'sha1' | 'sha256'
  let listed: string
  try {
    head = (await fs.readFile(path.join(directory, 'HEAD'), 'utf8')).trim()
    objectFormat = await readObjectFormat(directory)
    listed = await git(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir: directory })
  } catch (error) {
    if (isMissing(error) || !(await exists(directory))) return null
    throw error
  }
  const refs = listed
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ oid: line.slice(0, line.indexOf(' ')), name: line.slice(line.indexOf(' ') + 1) }))
  const entry: RepositoryEntry = { storage, path: relative, objectFormat, head, refs: refs.length, bundle: null }
  if (refs.length === 0) return entry
  await fs.mkdir(path.dirname(bundleFile), { recursive: true })
  await fs.mkdir(scratch, { recursive: true })
  const snapshot = await fs.mkdtemp(path.join(scratch, 'snapshot-'))
  try {
    await writeSnapshotRepository(snapshot, directory, objectFormat, refs)
    await git(['bundle', 'create', '--quiet', bundleFile, '--all'], { gitDir: snapshot })
  } catch (error) {
    if (!(await exists(directory))) return null
    throw error
  } finally {
    await fs.rm(snapshot, { recursive: true, force: true })
  }
  return { ...entry, bundle: bundleName }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file)
    return true
  } catch {
    return false
  }
}

/** What `git init --bare` writes that a repository needs, without sample hooks (forks are made the same way). */
function configText(objectFormat: string): string {
  if (objectFormat !== 'sha256') return '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n'
  return '[core]\n\trepositoryformatversion = 1\n\tfilemode = true\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n'
}

/**
 * Makes a repository again from its entry: the skeleton `git init --bare` would write (written here, which spares a
 * process per repository), the bundle's refs fetched into it, which checks every object and their connectivity, then HEAD.
 */
export async function restoreRepository(root: string, entry: RepositoryEntry, bundleFile: string | null): Promise<void> {
  const directory = path.join(root, entry.path)
  for (const sub of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags'])
    await fs.mkdir(path.join(directory, sub), { recursive: true })
  await fs.writeFile(path.join(directory, 'config'), configText(entry.objectFormat))
  await fs.writeFile(path.join(directory, 'HEAD'), `${entry.head}\n`)
  if (bundleFile) {
    await git(['-c', 'gc.auto=0', 'fetch', '--quiet', '--no-write-fetch-head', bundleFile, '+refs/*:refs/*'], { gitDir: directory })
  }
}
