import { git, GitError } from '../repositories/index.js'

/** What git says of one merge request's branches; null fields are missing branches. */
export interface BranchFacts {
  /** The source branch head (GL `diff_head_sha`). */
  sourceSha: string | null
  /** The target branch head (GL `diff_start_sha`). */
  targetSha: string | null
  /** Their merge base, null when they share no history. */
  baseSha: string | null
  /** The source has commits the target lacks. */
  hasCommits: boolean
  /** The target branch can be fast-forwarded to the source. */
  fastForwardPossible: boolean
  /** A three-way merge would conflict (or the histories are unrelated). */
  conflicts: boolean
}

/** GitLab's ref keeping a merge request's head commit in the target repository (refs/merge-requests/<iid>/head). */
export function mergeRequestHeadRef(iid: number): string {
  return `refs/merge-requests/${iid}/head`
}

/** The commit a ref points at, or null when it does not exist. */
export async function readRef(gitDir: string, ref: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { gitDir })).trim() || null
  } catch (error) {
    if (error instanceof GitError) return null
    throw error
  }
}

async function hasCommit(gitDir: string, sha: string): Promise<boolean> {
  try {
    await git(['cat-file', '-e', `${sha}^{commit}`], { gitDir })
    return true
  } catch (error) {
    if (error instanceof GitError) return false
    throw error
  }
}

/**
 * Makes a fork's commit available in the target repository by fetching the source branch into the merge request's
 * head ref, as GitLab keeps it (GL MergeRequest#fetch_ref!). Nothing is fetched when the commit is there already.
 */
export async function fetchSourceInto(targetDir: string, sourceDir: string, branch: string, sha: string, iid: number): Promise<boolean> {
  if (await hasCommit(targetDir, sha)) return true
  try {
    await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', sourceDir, `+refs/heads/${branch}:${mergeRequestHeadRef(iid)}`], {
      gitDir: targetDir,
    })
  } catch (error) {
    if (!(error instanceof GitError)) throw error
  }
  return hasCommit(targetDir, sha)
}

async function mergeBase(gitDir: string, a: string, b: string): Promise<string | null> {
  try {
    return (await git(['merge-base', a, b], { gitDir })).trim() || null
  } catch (error) {
    if (error instanceof GitError && error.code === 1) return null
    throw error
  }
}

/** The tree of a three-way merge of `theirs` into `ours`, written without a working tree; null on conflicts or unrelated histories. */
export async function mergeTree(gitDir: string, ours: string, theirs: string): Promise<string | null> {
  try {
    return (await git(['merge-tree', '--write-tree', '--no-messages', ours, theirs], { gitDir })).split('\n')[0].trim()
  } catch (error) {
    // Exit 1 is a conflicted merge; unrelated histories are refused with 128.
    if (error instanceof GitError && (error.code === 1 || /unrelated histories/.test(error.stderr))) return null
    throw error
  }
}

/** Reads what mergeability depends on; both commits must be in `gitDir`. */
export async function readBranchFacts(gitDir: string, sourceSha: string | null, targetSha: string | null): Promise<BranchFacts> {
  if (sourceSha === null || targetSha === null) {
    return { sourceSha, targetSha, baseSha: null, hasCommits: false, fastForwardPossible: false, conflicts: false }
  }
  const baseSha = await mergeBase(gitDir, targetSha, sourceSha)
  if (baseSha === null) return { sourceSha, targetSha, baseSha, hasCommits: true, fastForwardPossible: false, conflicts: true }
  const hasCommits = baseSha !== sourceSha
  const fastForwardPossible = baseSha === targetSha
  const conflicts = hasCommits && !fastForwardPossible && (await mergeTree(gitDir, targetSha, sourceSha)) === null
  return { sourceSha, targetSha, baseSha, hasCommits, fastForwardPossible, conflicts }
}

/** Points a ref at a commit, whatever it pointed at before. */
export async function writeRef(gitDir: string, ref: string, sha: string): Promise<void> {
  await git(['update-ref', ref, sha], { gitDir })
}

/** Deletes a ref only if it still points at `oldSha`; answers whether it was deleted. */
export async function deleteRef(gitDir: string, ref: string, oldSha: string): Promise<boolean> {
  try {
    await git(['update-ref', '-d', ref, oldSha], { gitDir })
    return true
  } catch (error) {
    if (error instanceof GitError) return false
    throw error
  }
}
