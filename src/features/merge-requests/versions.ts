import type { Context } from '../../core/context.js'
import type { MergeRequestDiffRow, MergeRequestRow } from '../../db/schema.js'
import { diffBetween, git, GitError, isAncestor, patchIdBetween, type DiffResult, type FileDiff } from '../repositories/index.js'
import { mergeRequestHeadRef, writeRef, type BranchFacts } from './repository.js'
import { findLatestMergeRequestDiff, insertMergeRequestDiffUnlessMoved } from './store.js'

/** The three commits a version's diff is defined by (GL DiffRefs). */
export interface DiffRefs {
  base_sha: string | null
  head_sha: string
  start_sha: string
}

export function diffRefsOf(version: MergeRequestDiffRow): DiffRefs {
  return { base_sha: version.base_commit_sha, head_sha: version.head_commit_sha, start_sha: version.start_commit_sha }
}

/** Where a version's diff starts: the merge base, or the target's head when the histories share none. */
export function diffStartOf(version: MergeRequestDiffRow): string {
  return version.base_commit_sha ?? version.start_commit_sha
}

/**
 * GL Gitlab::Diff::FileCollectionSorter, as MergeRequestDiff#sort_diffs stores them: by path part, and at each level
 * what lies in a directory before the files beside it.
 */
export function sortDiffFiles(files: readonly FileDiff[]): FileDiff[] {
  const partsOf = (file: FileDiff) => (file.newPath || file.oldPath).split('/')
  const compare = (a: string[], b: string[]): number => {
    for (let at = 0; ; at += 1) {
      const aLast = at === a.length - 1
      const bLast = at === b.length - 1
      if (aLast && !bLast) return 1
      if (bLast && !aLast) return -1
      if (a[at] !== b[at]) return a[at] < b[at] ? -1 : 1
      if (aLast && bLast) return 0
    }
  }
  return [...files].sort((a, b) => compare(partsOf(a), partsOf(b)))
}

/**
 * A version's diff, its files in GitLab's order (GL MergeRequestDiff#diffs): the files GitLab stores for it, cut at
 * GitLab's limits; views without limits read the same files.
 */
export async function versionDiff(directory: string, version: MergeRequestDiffRow): Promise<DiffResult> {
  const diff = await diffBetween(directory, diffStartOf(version), version.head_commit_sha)
  return { files: sortDiffFiles(diff.files), overflow: diff.overflow }
}

/**
 * `git patch-id --stable` of the diff (GL MergeRequestDiff#patch_id_sha, Gitaly GetPatchID); null for an empty one.
 */
async function patchIdOf(directory: string, from: string, to: string): Promise<string | null> {
  try {
    return await patchIdBetween(directory, from, to)
  } catch (error) {
    if (error instanceof GitError) return null
    throw error
  }
}

async function countCommits(directory: string, from: string, to: string): Promise<number> {
  return Number((await git(['rev-list', '--count', `${from}..${to}`], { gitDir: directory })).trim())
}

/**
 * The merge request's latest version, first recording a new one when its source branch has moved since (GL
 * MergeRequests::RefreshService#reload_merge_requests, MergeRequest#reload_diff): only open merge requests whose
 * branches both exist get new versions. The version's head and start are kept reachable (refs/keep-around/<sha>) and
 * the head in refs/merge-requests/<iid>/head, as GitLab keeps them; of two requests noticing the same move, one
 * records it.
 */
export async function reconcileVersion(
  ctx: Context,
  row: MergeRequestRow,
  targetDir: string,
  facts: BranchFacts,
  options: { writable: boolean } = { writable: true },
): Promise<MergeRequestDiffRow | null> {
  const latest = (await findLatestMergeRequestDiff(ctx.db, row.id)) ?? null
  const { sourceSha, targetSha } = facts
  if (row.state !== 'opened' || sourceSha === null || targetSha === null || !options.writable) return latest
  // The source has not moved, and the target only moved ahead of the version's start (GL reloads the diff when the
  // target branch is rewritten by a force push, or when the merge request is given another target branch).
  if (latest && latest.head_commit_sha === sourceSha) {
    if (latest.start_commit_sha === targetSha || (await isAncestor(targetDir, latest.start_commit_sha, targetSha))) return latest
  }
  const from = facts.baseSha ?? targetSha
  const [diff, commitCount, patchId] = await Promise.all([
    diffBetween(targetDir, from, sourceSha),
    countCommits(targetDir, from, sourceSha),
    patchIdOf(targetDir, from, sourceSha),
  ])
  for (const sha of new Set([sourceSha, targetSha])) await writeRef(targetDir, `refs/keep-around/${sha}`, sha)
  await writeRef(targetDir, mergeRequestHeadRef(row.iid), sourceSha)
  const state = commitCount === 0 ? 'empty' : diff.overflow ? 'overflow' : 'collected'
  const inserted = await ctx.db.transaction().execute((trx) =>
    insertMergeRequestDiffUnlessMoved(trx, latest?.id ?? null, {
      merge_request_id: row.id,
      head_commit_sha: sourceSha,
      base_commit_sha: facts.baseSha,
      start_commit_sha: targetSha,
      state,
      real_size: diff.overflow ? `${diff.files.length}+` : String(diff.files.length),
      patch_id_sha: patchId,
      created_at: ctx.now().toISOString(),
    }),
  )
  return inserted ?? (await findLatestMergeRequestDiff(ctx.db, row.id)) ?? null
}
