import fs from 'node:fs'

/**
 * The wal-index header: the first 48 bytes of a WAL database's `-shm` file, which every commit and every restart of
 * the WAL rewrites (its frame count, change counter and salts; https://www.sqlite.org/walformat.html).
 */
const HEADER_BYTES = 48

/**
 * Whether a connection may have committed to the SQLite file at `databasePath` since the last call: false only when
 * the wal-index header is byte for byte as it was. Reading it is one `pread` of shared memory; SQLite's
 * `pragma data_version` takes and releases the file's read locks for the same answer and costs about ten times
 * more, on every turn of the event loop of every process. Without a readable `-shm` file (no WAL), always true.
 */
export function walCommitWatch(databasePath: string): () => boolean {
  let fd: number
  try {
    fd = fs.openSync(`${databasePath}-shm`, 'r')
  } catch {
    return () => true
  }
  const seen = Buffer.alloc(HEADER_BYTES)
  const now = Buffer.alloc(HEADER_BYTES)
  // The first look finds a change, so whoever asks reads SQLite's own answer once.
  let first = true
  return () => {
    if (fs.readSync(fd, now, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return true
    if (!first && now.equals(seen)) return false
    first = false
    now.copy(seen)
    return true
  }
}
