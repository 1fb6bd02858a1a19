import { git, GitError, readObjectHeader } from '../repositories/index.js'

// Reads of a repository that writes of commits need. Object reads go through the long-lived object reader; a few
// questions only git's history walk answers run one git process each.

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/** GL Gitlab::Git.commit_id?: a full object id. */
export function isObjectId(text: string): boolean {
  return OBJECT_ID.test(text)
}

/** Answers of lastCommitForPath by commit and path: a commit's history never changes. Bounded; the oldest go first. */
const LAST_COMMITS_KEPT = 10_000
const lastCommits = new Map<string, string | null>()

/** Walks of lastCommitForPath under way, by key: requests asking at once for the same answer share one walk. */
const walking = new Map<string, Promise<string | null>>()

/**
 * The last commit reachable from `revision` that changed `filePath` (GL Commit.last_for_path, literal pathspec). It
 * walks history, which takes long in a deep one, so the answer for an object id is kept, and asked of git once.
 */
export async function lastCommitForPath(directory: string, revision: string, filePath: string): Promise<string | null> {
  const key = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(revision) ? `${revision}\0${filePath}` : null
  if (key !== null && lastCommits.has(key)) return lastCommits.get(key) ?? null
  let walk = key === null ? undefined : walking.get(key)
  if (!walk) {
    walk = walkToLastCommit(directory, revision, filePath)
    if (key !== null) {
      walking.set(key, walk)
      walk.then(
        (found) => {
          walking.delete(key)
          if (lastCommits.size >= LAST_COMMITS_KEPT) lastCommits.delete(lastCommits.keys().next().value as string)
          lastCommits.set(key, found)
        },
        () => walking.delete(key),
      )
    }
  }
  try {
    return await walk
  } catch (error) {
    if (error instanceof GitError) return null
    throw error
  }
}

/** `git rev-list -1` for one path; throws what git throws. */
async function walkToLastCommit(directory: string, revision: string, filePath: string): Promise<string | null> {
  const out = await git(['--literal-pathspecs', 'rev-list', '-1', revision, '--', filePath], { gitDir: directory })
  return out.trim() || null
}

/** Copies a commit and what it needs from another repository (a fork's upstream) unless it is there already. */
export async function fetchCommit(directory: string, source: string, oid: string): Promise<void> {
  if ((await readObjectHeader(directory, oid))?.type === 'commit') return
  // The source's upload-pack must hand out an object no ref names by then; the setting reaches it through git's environment.
  await git(['-c', 'uploadpack.allowAnySHA1InWant=true', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', source, oid], {
    gitDir: directory,
  })
}
