import fs from 'node:fs'
import path from 'node:path'
import type { Readable } from 'node:stream'

/** Advertisements kept at most (the least recently used goes first), and the largest one kept. */
const MAX_ENTRIES = 1_000
const MAX_BYTES = 256 * 1024
/**
 * A file system stamps modification times from a coarse clock: a change within this long of the last one may leave a
 * directory's time as it was. An advertisement read while a ref directory changed this recently is not kept.
 */
const SETTLE_NS = 20_000_000n

export interface Advertisement {
  status: number
  headers: [string, string][]
  body: Buffer
}

interface Kept extends Advertisement {
  /** The directories whose modification times stand for the refs, with those times. */
  stamps: [string, bigint][]
}

/** Every directory a ref change touches: git writes a ref (or packed-refs, HEAD, config) beside a lock file and renames it. */
function refDirectories(directory: string): string[] {
  const found = [directory]
  const walk = (dir: string) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue
      const child = path.join(dir, entry.name)
      found.push(child)
      walk(child)
    }
  }
  found.push(path.join(directory, 'refs'))
  walk(path.join(directory, 'refs'))
  return found
}

function stampOf(dir: string): bigint {
  try {
    return fs.statSync(dir, { bigint: true }).mtimeNs
  } catch {
    return -1n
  }
}

/**
 * The ref advertisements of `info/refs` (what `git http-backend` answers a clone, fetch or push before it starts),
 * kept until the repository's refs change: running git for each costs milliseconds of CPU, checking the modification
 * times of the ref directories a few microseconds. Authorization is still done for every request.
 */
export class AdvertisementCache {
  private readonly entries = new Map<string, Kept>()
  /** Advertisements being made, with the times of the ref directories when they started, if those had settled. */
  private readonly making = new Map<string, { stamps: bigint[]; made: Promise<Advertisement> }>()

  /**
   * The advertisement for `key` in `directory`: the kept one, or the one being made for another caller when no ref has
   * changed since it started, or a new one from `make`. Callers arriving together after a push start one git process,
   * not one each.
   */
  async answer(
    directory: string,
    key: string,
    make: () => Promise<{ status: number; headers: [string, string][]; body: Readable }>,
  ): Promise<Advertisement> {
    const kept = this.find(directory, key)
    if (kept) return kept
    const entryKey = `${directory}\u0000${key}`
    const stamps = refDirectories(directory).map((dir) => stampOf(dir))
    const running = this.making.get(entryKey)
    if (running && running.stamps.length === stamps.length && running.stamps.every((stamp, n) => stamp === stamps[n])) return running.made
    const made = make().then(async (response) => this.keep(directory, key, response))
    // Only times older than a clock tick show every later change: others may hide one made since.
    const settled = BigInt(Date.now()) * 1_000_000n - SETTLE_NS
    if (stamps.every((stamp) => stamp >= 0n && stamp < settled)) {
      this.making.set(entryKey, { stamps, made })
      const done = () => {
        if (this.making.get(entryKey)?.made === made) this.making.delete(entryKey)
      }
      made.then(done, done)
    }
    return made
  }

  /** The kept advertisement for `key` in `directory`, if its refs have not changed since. */
  find(directory: string, key: string): Advertisement | null {
    const entryKey = `${directory}\u0000${key}`
    const kept = this.entries.get(entryKey)
    if (!kept) return null
    this.entries.delete(entryKey)
    if (kept.stamps.some(([dir, stamp]) => stampOf(dir) !== stamp)) return null
    this.entries.set(entryKey, kept)
    return kept
  }

  /**
   * Answers `response` and keeps a copy of it when the refs were the same before and after it was made, and had not
   * changed just before: otherwise the copy might show refs as they no longer are.
   */
  async keep(
    directory: string,
    key: string,
    response: { status: number; headers: [string, string][]; body: Readable },
  ): Promise<Advertisement> {
    const dirs = refDirectories(directory)
    const before = dirs.map((dir) => stampOf(dir))
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of response.body) {
      chunks.push(chunk as Buffer)
      size += (chunk as Buffer).length
    }
    const advertisement = { status: response.status, headers: response.headers, body: Buffer.concat(chunks) }
    const settled = BigInt(Date.now()) * 1_000_000n - SETTLE_NS
    const stamps = dirs.map((dir): [string, bigint] => [dir, stampOf(dir)])
    const unchanged = stamps.every(([, stamp], n) => stamp === before[n] && stamp >= 0n && stamp < settled)
    if (response.status === 200 && unchanged && size <= MAX_BYTES) {
      const entryKey = `${directory}\u0000${key}`
      this.entries.delete(entryKey)
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string)
      this.entries.set(entryKey, { ...advertisement, stamps })
    }
    return advertisement
  }
}
