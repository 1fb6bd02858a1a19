import { commitTitle } from '../commits/index.js'
import { readGitOutput } from '../repositories/index.js'

/**
 * Commits touching a folder that the walk for its entries' last commits reads at most. GitLab asks Gitaly for 25
 * entries at a time, each walking history without a count limit, bounded only by Gitaly's medium timeout (30 s);
 * svc walks once for every entry, and an entry whose last change is older than this many commits shows none.
 */
export const LAST_COMMITS_WALK_LIMIT = 1_000

/** What the file tree shows of an entry's last commit. */
export interface EntryCommit {
  oid: string
  title: string
  /** The committer's date, ISO 8601 in their offset (GitLab's tree shows `committed_date`). */
  committedAt: string
}

/** The last commit of a folder, and of each of its entries that the walk found, by entry name. */
export interface LastCommits {
  /** The folder's own last commit (GL Commit.last_for_path); null when the walk found none. */
  folder: string | null
  entries: Map<string, EntryCommit>
}

const COLON = 0x3a
const LINE_FEED = 0x0a
const SLASH = 0x2f

/**
 * The last commit reachable from `commitOid` that changed each entry of the folder at `path` ('' for the root), read in
 * one `git log` of the folder as git writes it, ended as soon as every entry has its commit or after
 * LAST_COMMITS_WALK_LIMIT commits. An entry's commit is the newest one (in git log's order) whose changes, or a
 * merge's changes against every parent, list a path under it: what `git log -1 -- <entry>` answers, but for a merge
 * that kept one side's version of a path the other side changed, which git's per-path simplification follows only
 * through the side kept.
 */
export async function findLastCommits(directory: string, commitOid: string, path: string, names: readonly string[]): Promise<LastCommits> {
  const prefix = Buffer.from(path === '' ? '' : `${path}/`, 'utf8')
  const pending = new Set(names)
  const entries = new Map<string, EntryCommit>()
  let folder: string | null = null
  let current: EntryCommit | null = null
  let expectsPath = false
  let carried: Buffer | null = null

  /** The commit of a header record: `<id>\t<committer date>\t<message>` (see the format below). */
  const readHeader = (data: Buffer, start: number, end: number) => {
    const tab = data.indexOf(0x09, start)
    const dateEnd = tab < 0 || tab > end ? -1 : data.indexOf(0x09, tab + 1)
    if (dateEnd < 0 || dateEnd > end) return
    const oid = data.toString('latin1', start, tab)
    // Only the title is kept: the message's first line.
    const lineEnd = data.indexOf(LINE_FEED, dateEnd + 1)
    const message = data.toString('utf8', dateEnd + 1, lineEnd < 0 || lineEnd > end ? end : lineEnd)
    current = { oid, committedAt: data.toString('latin1', tab + 1, dateEnd), title: commitTitle(message) }
    folder ??= oid
  }

  /** A changed path: its entry, the first segment after the folder's path, gets the commit if it has none yet. */
  const readPath = (data: Buffer, start: number, end: number) => {
    if (current === null || end - start <= prefix.length || data.compare(prefix, 0, prefix.length, start, start + prefix.length) !== 0) {
      return
    }
    const nameStart = start + prefix.length
    const slash = data.indexOf(SLASH, nameStart)
    const name = data.toString('utf8', nameStart, slash < 0 || slash > end ? end : slash)
    if (pending.delete(name)) entries.set(name, current)
  }

  /** One NUL-ended record of the log: a commit's header, a raw change line, or the path of the change line before it. */
  const readRecord = (data: Buffer, start: number, end: number) => {
    if (expectsPath) {
      expectsPath = false
      return readPath(data, start, end)
    }
    // git writes a line feed between a commit's header and its first change line.
    const first = data[start] === LINE_FEED ? start + 1 : start
    if (first >= end) return
    if (data[first] === COLON) expectsPath = true
    else readHeader(data, first, end)
  }

  const args = ['--literal-pathspecs', 'log', '-z', '--format=%H%x09%cI%x09%B', '--raw', '--no-abbrev', '--no-renames', '-c', '--root']
  args.push(`--max-count=${LAST_COMMITS_WALK_LIMIT}`, commitOid, '--', ...(path === '' ? [] : [path]))
  await readGitOutput(directory, args, (chunk) => {
    const data = carried === null ? chunk : Buffer.concat([carried, chunk])
    carried = null
    let start = 0
    for (let end = data.indexOf(0); end >= 0; end = data.indexOf(0, start)) {
      readRecord(data, start, end)
      start = end + 1
      // A change line's path can finish the last entry: what comes after it is not needed.
      if (pending.size === 0 && !expectsPath && folder !== null) return false
    }
    if (start < data.length) carried = Buffer.from(data.subarray(start))
    return true
  })
  return { folder, entries }
}
