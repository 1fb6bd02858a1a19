import type { Readable } from 'node:stream'
import type { Context } from '../../core/context.js'
import { Forbidden, RecordNotFound } from '../../core/errors.js'
import type { MergeRequestDiffRow, MergeRequestRow } from '../../db/schema.js'
import {
  git,
  projectRepositoryDirectory,
  rawPatchBetween,
  readCommit,
  readObjectHeader,
  repositoryExists,
  type DiffResult,
  type ParsedCommit,
  isAncestor,
} from '../repositories/index.js'
import { canReadMergeRequests, findProjectsByIds, type LoadedProject } from '../access/index.js'
import { findProjectCommit } from '../commits/index.js'
import { loadBranches } from './mergeability.js'
import { showMergeRequest, type MergeRequestView } from './service.js'
import { findLatestMergeRequestDiff, findMergeRequestDiff, findMergeRequestDiffs, findMergeRequestsByIidsOrCommit } from './store.js'
import { diffStartOf, versionDiff } from './versions.js'

/** A version of a merge request's diff, as its entity shows it. */
export type MergeRequestVersion = MergeRequestDiffRow

const NO_DIFF: DiffResult = { files: [], overflow: false }

/** The head of the merge request's source branch, read through the object reader (no git process); null when gone. */
async function sourceHeadOf(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<string | null> {
  const sourceId = row.source_project_id ?? row.project_id
  const source = sourceId === loaded.project.id ? loaded.project : (await findProjectsByIds(ctx.db, [sourceId]))[0]
  if (!source || /[\0\n\r]/.test(row.source_branch)) return null
  const directory = projectRepositoryDirectory(ctx.config, source)
  if (!(await repositoryExists(directory))) return null
  const header = await readObjectHeader(directory, `refs/heads/${row.source_branch}`)
  return header?.oid ?? null
}

/**
 * The merge request's repository and its latest version, recorded first when the source branch has moved. While the
 * latest version's head is still the source branch's, no git process runs (no mergeability check either).
 */
async function latestVersionOf(ctx: Context, loaded: LoadedProject, row: MergeRequestRow) {
  const directory = projectRepositoryDirectory(ctx.config, loaded.project)
  const latest = (await findLatestMergeRequestDiff(ctx.db, row.id)) ?? null
  if (row.state !== 'opened' || (latest !== null && (await sourceHeadOf(ctx, loaded, row)) === latest.head_commit_sha)) {
    return { directory, version: latest }
  }
  const branches = await loadBranches(ctx, row, loaded.project)
  return { directory, version: branches?.version ?? latest }
}

/** A version's commits, newest first (GL MergeRequestDiff#commits), read by one `git rev-list` and the object reader. */
export async function versionCommits(directory: string, version: MergeRequestDiffRow | null): Promise<ParsedCommit[]> {
  if (version === null) return []
  const out = await git(['rev-list', `${diffStartOf(version)}..${version.head_commit_sha}`], { gitDir: directory })
  const commits = await Promise.all(
    out
      .split('\n')
      .filter(Boolean)
      .map((oid) => readCommit(directory, oid)),
  )
  return commits.filter((commit): commit is ParsedCommit => commit !== null)
}

/**
 * GET …/merge_requests/:iid/changes (GL Entities::MergeRequestChanges): the merge request and its latest version's
 * diff; `access_raw_diffs` reads it without GitLab's limits.
 */
export async function showMergeRequestChanges(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  options: { rawDiffs: boolean },
): Promise<{ view: MergeRequestView; diff: DiffResult; overflow: boolean }> {
  const view = await showMergeRequest(ctx, loaded, row)
  const version = (await findLatestMergeRequestDiff(ctx.db, row.id)) ?? null
  if (version === null) return { view, diff: NO_DIFF, overflow: false }
  const directory = projectRepositoryDirectory(ctx.config, loaded.project)
  const diff = await versionDiff(directory, version)
  // GL MergeRequestChanges#overflow?: false when read without limits (the version's stored files all the same).
  return { view, diff, overflow: !options.rawDiffs && diff.overflow }
}

/** GET …/merge_requests/:iid/diffs: the latest version's files in GitLab's order. */
export async function listMergeRequestDiffs(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<DiffResult> {
  const { directory, version } = await latestVersionOf(ctx, loaded, row)
  return version === null ? NO_DIFF : versionDiff(directory, version)
}

/**
 * GET …/merge_requests/:iid/raw_diffs: the latest version's whole patch (GL send_git_diff, Gitaly RawDiff), streamed
 * from git as it writes.
 */
export async function readMergeRequestRawDiff(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<Buffer | Readable> {
  const { directory, version } = await latestVersionOf(ctx, loaded, row)
  return version === null ? Buffer.alloc(0) : rawPatchBetween(directory, diffStartOf(version), version.head_commit_sha)
}

/** GET …/merge_requests/:iid/commits: the latest version's commits, newest first. */
export async function listMergeRequestCommits(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<ParsedCommit[]> {
  const { directory, version } = await latestVersionOf(ctx, loaded, row)
  return versionCommits(directory, version)
}

/** GET …/merge_requests/:iid/versions: newest first. */
export async function listMergeRequestVersions(ctx: Context, loaded: LoadedProject, row: MergeRequestRow): Promise<MergeRequestDiffRow[]> {
  await latestVersionOf(ctx, loaded, row)
  return findMergeRequestDiffs(ctx.db, row.id)
}

/** GET …/merge_requests/:iid/versions/:version_id: the version with its commits and whole diff; 404 "Not found" otherwise. */
export async function showMergeRequestVersion(
  ctx: Context,
  loaded: LoadedProject,
  row: MergeRequestRow,
  id: number,
): Promise<{ version: MergeRequestDiffRow; commits: ParsedCommit[]; diff: DiffResult }> {
  const version = await findMergeRequestDiff(ctx.db, row.id, id)
  if (!version) throw new RecordNotFound()
  const directory = projectRepositoryDirectory(ctx.config, loaded.project)
  // GL MergeRequestDiffFull: its stored diffs without limits.
  const [commits, diff] = await Promise.all([versionCommits(directory, version), versionDiff(directory, version)])
  return { version, commits, diff }
}

/**
 * GET /projects/:id/repository/commits/:sha/merge_requests (GL MergeRequest.by_related_commit): the merge requests
 * whose latest version holds the commit (its head ref contains it and its diff's start does not), or whose merge or
 * squash commit it is; newest first.
 */
export async function listCommitMergeRequests(
  ctx: Context,
  loaded: LoadedProject,
  revision: string,
  state: string,
): Promise<MergeRequestRow[]> {
  if (!canReadMergeRequests(loaded.access, loaded.project)) throw new Forbidden()
  const { directory, commit } = await findProjectCommit(ctx, loaded, revision)
  const out = await git(['for-each-ref', '--contains', commit.oid, '--format=%(refname)', 'refs/merge-requests/'], { gitDir: directory })
  const iids = [...out.matchAll(/^refs\/merge-requests\/(\d+)\/head$/gm)].map((match) => Number(match[1]))
  const rows = await findMergeRequestsByIidsOrCommit(ctx.db, loaded.project.id, iids, commit.oid)
  const related: MergeRequestRow[] = []
  for (const row of rows) {
    if (state !== 'all' && row.state !== state) continue
    const isMergeCommit = row.merge_commit_sha === commit.oid || row.squash_commit_sha === commit.oid
    const version = isMergeCommit ? null : await findLatestMergeRequestDiff(ctx.db, row.id)
    if (isMergeCommit || (version && !(await isAncestor(directory, commit.oid, diffStartOf(version))))) related.push(row)
  }
  return related
}
