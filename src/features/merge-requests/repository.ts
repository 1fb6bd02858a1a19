import { git, GitError, mergeTrees, type GitIdentity } from '../repositories/index.js'

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
export function fetchSourceInto(targetDir: string, sourceDir: string, branch: string, sha: string, iid: number): Promise<boolean> {
  return fetchBranchInto(targetDir, sourceDir, `+refs/heads/${branch}:${mergeRequestHeadRef(iid)}`, sha)
}

/** Makes another repository's branch head available here (the branch is fetched, no ref written unless the refspec names one). */
export async function fetchBranchInto(intoDir: string, fromDir: string, refspec: string, sha: string): Promise<boolean> {
  if (await hasCommit(intoDir, sha)) return true
  try {
    await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', fromDir, refspec], { gitDir: intoDir })
  } catch (error) {
    if (!(error instanceof GitError)) throw error
  }
  return hasCommit(intoDir, sha)
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

/** A commit as its raw object says it: what a rebase keeps of it. */
interface RawCommit {
  tree: string
  parent: string | null
  /** `Name <email> 1700000000 +0100`, as recorded. */
  author: string
  message: string
}

async function readRawCommit(gitDir: string, oid: string): Promise<RawCommit> {
  const text = await git(['cat-file', 'commit', oid], { gitDir })
  const blank = text.indexOf('\n\n')
  const headers = (blank < 0 ? text : text.slice(0, blank)).split('\n')
  const value = (name: string) => headers.find((line) => line.startsWith(`${name} `))?.slice(name.length + 1) ?? null
  return { tree: value('tree')!, parent: value('parent'), author: value('author')!, message: blank < 0 ? '' : text.slice(blank + 2) }
}

async function treeOf(gitDir: string, commit: string): Promise<string> {
  return (await git(['rev-parse', `${commit}^{tree}`], { gitDir })).trim()
}

/** The environment of `git commit-tree` keeping the author as recorded, with `committer` committing at `at`. */
function rebasedCommitEnvironment(author: string, committer: GitIdentity, at: Date): Record<string, string> {
  const match = /^(.*?) ?<([^>]*)> (\d+ [+-]\d{4})$/.exec(author)
  return {
    GIT_AUTHOR_NAME: match?.[1] ?? author,
    GIT_AUTHOR_EMAIL: match?.[2] ?? '',
    ...(match ? { GIT_AUTHOR_DATE: match[3] } : {}),
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: `${Math.floor(at.getTime() / 1000)} +0000`,
  }
}

/**
 * The source's commits replayed onto `onto` as `git rebase` picks them (merges left out, and commits whose change
 * `onto` has already), each a three-way merge of its own change written without a working tree: authors and messages
 * kept, `committer` committing at `at`; a commit left empty is dropped. Answers the new head, the source itself when
 * it is based on `onto` already, or null when a commit conflicts.
 */
export async function rebaseCommits(
  gitDir: string,
  source: string,
  onto: string,
  committer: GitIdentity,
  at: Date,
): Promise<string | null> {
  if ((await mergeBase(gitDir, onto, source)) === onto) return source
  const picks = await git(['rev-list', '--reverse', '--no-merges', '--right-only', '--cherry-pick', `${onto}...${source}`], { gitDir })
  let head = onto
  let headTree = await treeOf(gitDir, onto)
  for (const oid of picks.split('\n').filter(Boolean)) {
    const commit = await readRawCommit(gitDir, oid)
    const parentTree = commit.parent === null ? null : await treeOf(gitDir, commit.parent)
    const tree = await mergeTrees(gitDir, parentTree, headTree, commit.tree)
    if (tree === null) return null
    if (tree === headTree) continue
    const env = rebasedCommitEnvironment(commit.author, committer, at)
    head = (await git(['commit-tree', tree, '-p', head], { gitDir, env, input: commit.message })).trim()
    headTree = tree
  }
  return head
}
