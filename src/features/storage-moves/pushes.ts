import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * Pushes in progress, as files in the repository (GL's reference counter, kept beside the repository so that every node
 * sharing the storage sees them): a push writes its marker before it checks that the repository is writable, and a
 * move waits for the markers to go after making the repository read-only, so no push lands in a copy being made.
 */
export const PUSH_MARKERS_DIRECTORY = 'svc-pushes'

/** A running push refreshes its marker this often; a marker not refreshed for PUSH_MARKER_STALE_MS belongs to a dead process. */
const PUSH_MARKER_REFRESH_MS = 5_000
const PUSH_MARKER_STALE_MS = 30_000
/** GL UpdateRepositoryStorageMethods#wait_for_pushes: 30 seconds. */
const WAIT_FOR_PUSHES_MS = 30_000
const WAIT_POLL_MS = 100

/** Marks a push into the repository at `directory` as running; call the answer once the push is over. */
export async function beginRepositoryPush(directory: string): Promise<() => Promise<void>> {
  const markers = path.join(directory, PUSH_MARKERS_DIRECTORY)
  await fs.mkdir(markers, { recursive: true })
  const marker = path.join(markers, `${process.pid}-${randomBytes(6).toString('hex')}`)
  await fs.writeFile(marker, '')
  const refresh = setInterval(() => {
    const now = new Date()
    fs.utimes(marker, now, now).catch(() => {})
  }, PUSH_MARKER_REFRESH_MS)
  refresh.unref()
  // Never fails: a marker that could not be removed stops being refreshed and goes stale.
  return async () => {
    clearInterval(refresh)
    await fs.rm(marker, { force: true }).catch(() => {})
  }
}

async function runningPushes(directory: string, now: number): Promise<number> {
  const markers = path.join(directory, PUSH_MARKERS_DIRECTORY)
  let names: string[]
  try {
    names = await fs.readdir(markers)
  } catch {
    return 0
  }
  let running = 0
  for (const name of names) {
    const stat = await fs.stat(path.join(markers, name)).catch(() => null)
    if (stat && now - stat.mtimeMs < PUSH_MARKER_STALE_MS) running += 1
  }
  return running
}

/** Waits until no push is running into the repository; false when some still are after GitLab's 30 seconds. */
export async function waitForPushes(directory: string, signal?: AbortSignal, timeoutMs = WAIT_FOR_PUSHES_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    signal?.throwIfAborted()
    if ((await runningPushes(directory, Date.now())) === 0) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS))
  }
}
