import fs from 'node:fs/promises'
import path from 'node:path'

/** Whether a bare repository is at `directory` (it has a HEAD). */
export async function repositoryExists(directory: string): Promise<boolean> {
  return fs.stat(path.join(directory, 'HEAD')).then(
    () => true,
    () => false,
  )
}

/** Flushes a file or directory to disk, so what the database is about to point at survives a power cut. */
export async function syncPath(target: string): Promise<void> {
  const handle = await fs.open(target, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
