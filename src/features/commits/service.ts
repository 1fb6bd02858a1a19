import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import type { OffsetPage } from '../../db/pagination.js'
import {
  diffBetween,
  diffStats,
  findCommit,
  git,
  GitError,
  isClientRevision,
  codeDirectory,
  readCommit,
  repositoryExists,
  type DiffResult,
  type ParsedCommit,
} from '../repositories/index.js'
import type { LoadedProject } from '../access/index.js'
import type { CommitStatsJson } from './schemas.js'

/** A commit of the project by revision, as the caller may read it; 404 "Commit Not Found" otherwise. */
export async function findProjectCommit(
  ctx: Context,
  loaded: LoadedProject,
  revision: string,
): Promise<{ directory: string; commit: ParsedCommit }> {
  const directory = codeDirectory(ctx, loaded)
  const commit = await findCommit(directory, revision)
  if (!commit) throw new NotFound('Commit')
  return { directory, commit }
}

/** GL CommitStats: lines added and removed against the first parent. */
export async function commitStatsOf(directory: string, commit: ParsedCommit): Promise<CommitStatsJson> {
  const { additions, deletions } = await diffStats(directory, commit.parents[0] ?? null, commit.oid)
  return { additions, deletions, total: additions + deletions }
}

/** A commit's changes against its first parent (a root commit: all its files), with GitLab's limits. */
export function commitDiffOf(directory: string, commit: ParsedCommit): Promise<DiffResult> {
  return diffBetween(directory, commit.parents[0] ?? null, commit.oid)
}

export interface ListCommitsInput {
  refName?: string
  since?: string
  until?: string
  path?: string
  author?: string
  all?: boolean
  firstParent?: boolean
  order: 'default' | 'topo'
  offset: number
  limit: number
}

/** `git rev-list`'s date form, which it reads whatever its version: `2026-11-27 10:00:00 +0000`. */
function gitDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000`
}

/**
 * GET /projects/:id/repository/commits (GL Repository#commits, Gitaly FindCommits): one `git rev-list` for the page's
 * ids, then each commit through the object reader. An unknown ref lists nothing.
 */
export async function listCommits(
  ctx: Context,
  loaded: LoadedProject,
  input: ListCommitsInput,
): Promise<{ directory: string; commits: ParsedCommit[] }> {
  const directory = codeDirectory(ctx, loaded)
  if (!(await repositoryExists(directory))) throw new NotFound('Repository')
  const ref = input.refName || loaded.project.default_branch || 'HEAD'
  if (!input.all && !isClientRevision(ref, { range: true })) return { directory, commits: [] }
  const args = ['rev-list', `--max-count=${input.limit}`, `--skip=${input.offset}`]
  if (input.firstParent) args.push('--first-parent')
  if (input.order === 'topo') args.push('--topo-order')
  if (input.since) args.push(`--since=${gitDate(input.since)}`)
  if (input.until) args.push(`--until=${gitDate(input.until)}`)
  if (input.author) args.push(`--author=${input.author}`)
  if (input.all) args.push('--all')
  else args.push('--end-of-options', ref)
  args.push('--')
  if (input.path) args.push(input.path)
  let out: string
  try {
    out = await git(args, { gitDir: directory, env: { GIT_LITERAL_PATHSPECS: '1' } })
  } catch (error) {
    // An unknown revision (or an empty repository's HEAD) lists nothing; a bad author pattern too.
    if (error instanceof GitError) return { directory, commits: [] }
    throw error
  }
  const oids = out.split('\n').filter(Boolean)
  const commits = await Promise.all(oids.map((oid) => readCommit(directory, oid)))
  return { directory, commits: commits.filter((commit): commit is ParsedCommit => commit !== null) }
}

/**
 * GET /projects/:id/repository/commits/:sha/refs (GL branch_names_contains, tag_names_contains): the branches and then
 * the tags whose history holds the commit, each sorted by name, read by one `git for-each-ref --contains`.
 */
export async function commitRefsOf(
  directory: string,
  commit: ParsedCommit,
  type: 'branch' | 'tag' | 'all',
): Promise<{ type: string; name: string }[]> {
  const prefixes = type === 'branch' ? ['refs/heads/'] : type === 'tag' ? ['refs/tags/'] : ['refs/heads/', 'refs/tags/']
  const out = await git(['for-each-ref', '--contains', commit.oid, '--format=%(refname)', ...prefixes], { gitDir: directory })
  const branches: string[] = []
  const tags: string[] = []
  for (const ref of out.split('\n')) {
    if (ref.startsWith('refs/heads/')) branches.push(ref.slice('refs/heads/'.length))
    else if (ref.startsWith('refs/tags/')) tags.push(ref.slice('refs/tags/'.length))
  }
  return [...branches.map((name) => ({ type: 'branch', name })), ...tags.map((name) => ({ type: 'tag', name }))]
}

/** An in-memory list's page, as Kaminari.paginate_array pages it. */
export function pageOfArray<T>(items: readonly T[], page: number, perPage: number): OffsetPage<T> {
  const start = (page - 1) * perPage
  return { rows: items.slice(start, start + perPage), page, perPage, total: items.length, hasNext: start + perPage < items.length }
}
