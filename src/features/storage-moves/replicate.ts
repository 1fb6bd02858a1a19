import fs from 'node:fs/promises'
import path from 'node:path'
import { git, syncPath } from '../repositories/index.js'
import { PUSH_MARKERS_DIRECTORY } from './pushes.js'

/** Every ref with the object it names, and what HEAD points at: equal listings mean equal repositories to a client. */
async function listRefs(directory: string): Promise<string> {
  const refs = await git(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir: directory })
  const head = (await git(['symbolic-ref', '-q', 'HEAD'], { gitDir: directory }).catch(() => '')).trim()
  return `HEAD ${head}\n${refs}`
}

/** Flushes every file and directory under `root` to disk, so that what the database is about to point at survives a power cut. */
async function syncTree(root: string): Promise<void> {
  const entries = await fs.readdir(root, { withFileTypes: true })
  for (const entry of entries) {
    const full = path.join(root, entry.name)
    if (entry.isDirectory()) await syncTree(full)
    else if (entry.isFile()) await syncPath(full)
  }
  await syncPath(root)
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted')
}

/** Where a copy is assembled before it takes the destination's name: beside it, on the same file system. */
export function temporaryDirectoryOf(destination: string): string {
  return `${destination}.moving`
}

/**
 * Copies the bare repository at `source` to `destination`: into a temporary directory first, verified there (the same
 * refs as the source, and `git fsck` clean), flushed to disk, then renamed over whatever was at the destination.
 * Running it again after a crash at any point starts over and ends the same way.
 */
export async function replicateRepository(source: string, destination: string, signal?: AbortSignal): Promise<void> {
  const temporary = temporaryDirectoryOf(destination)
  await fs.rm(temporary, { recursive: true, force: true })
  await fs.mkdir(path.dirname(temporary), { recursive: true })
  try {
    const before = await listRefs(source)
    const markers = path.join(source, PUSH_MARKERS_DIRECTORY)
    await fs.cp(source, temporary, {
      recursive: true,
      errorOnExist: true,
      force: false,
      preserveTimestamps: true,
      filter: (entry) => entry !== markers,
    })
    throwIfAborted(signal)
    const copied = await listRefs(temporary)
    const after = await listRefs(source)
    if (copied !== before || after !== before) throw new Error('Failed to verify the copied repository: its refs differ from the source')
    await git(['fsck', '--no-progress', '--no-dangling'], { gitDir: temporary }).catch((error: unknown) => {
      throw new Error(`Failed to verify the copied repository: git fsck failed (${error instanceof Error ? error.message : String(error)})`)
    })
    throwIfAborted(signal)
    await syncTree(temporary)
    await fs.rm(destination, { recursive: true, force: true })
    await fs.rename(temporary, destination)
    await syncPath(path.dirname(destination))
  } catch (error) {
    await fs.rm(temporary, { recursive: true, force: true }).catch(() => {})
    throw error
  }
}

/** Whether two repositories have the same refs naming the same objects, and the same HEAD. */
export async function haveSameRefs(first: string, second: string): Promise<boolean> {
  return (await listRefs(first)) === (await listRefs(second))
}

/** Removes a repository and flushes its parent directory, so the removal is not undone by a power cut either. */
export async function removeRepositoryAt(directory: string): Promise<void> {
  await fs.rm(directory, { recursive: true, force: true })
  await syncPath(path.dirname(directory)).catch(() => {})
}
