import type { Context } from '../../core/context.js'
import { NotFound } from '../../core/errors.js'
import type { LoadedProject } from '../access/index.js'
import { findCommit, git } from '../repositories/index.js'
import { openRepository, refOrDefault } from './repository.js'

/** GL Repository#contributors reads the newest commits only. */
const CONTRIBUTOR_COMMITS_LIMIT = 2000

/** Authors kept, by commit: the history below a commit never changes. */
const AUTHORS_KEPT = 64
const authorsByCommit = new Map<string, Contributor[]>()

export interface Contributor {
  name: string
  email: string
  commits: number
}

export interface ContributorsQuery {
  ref?: string
  orderBy: 'name' | 'email' | 'commits'
  sort: 'asc' | 'desc'
}

/** Ruby's String#casecmp: ASCII letters folded, then bytes compared. */
function casecmp(a: string, b: string): number {
  const left = Buffer.from(a.replace(/[A-Z]/g, (c) => c.toLowerCase()))
  const right = Buffer.from(b.replace(/[A-Z]/g, (c) => c.toLowerCase()))
  return Buffer.compare(left, right)
}

/** The authors of a commit's newest commits without merges, one per email, in the order of each one's newest commit. */
async function readAuthors(directory: string, oid: string): Promise<Contributor[]> {
  const log = await git(['log', '--no-merges', `--max-count=${CONTRIBUTOR_COMMITS_LIMIT}`, '--format=%an%x00%ae', oid, '--'], {
    gitDir: directory,
  })
  const byEmail = new Map<string, Contributor>()
  for (const line of log.split('\n')) {
    if (line === '') continue
    const [name, email] = line.split('\0')
    const contributor = byEmail.get(email)
    if (contributor) {
      contributor.commits += 1
      if (contributor.name.trim() === '') contributor.name = name
    } else byEmail.set(email, { name, email, commits: 1 })
  }
  return [...byEmail.values()]
}

/**
 * The authors of the ref's newest 2,000 commits without merges, one per email with the name of their newest
 * commit, in GL Commit.order_by's order (names and emails ignoring case). GitLab counts no additions or deletions.
 */
export async function listContributors(ctx: Context, loaded: LoadedProject, query: ContributorsQuery): Promise<Contributor[]> {
  const repository = openRepository(ctx, loaded)
  if (loaded.project.empty_repo && query.ref === undefined) return []
  const commit = await findCommit(repository.directory, refOrDefault(repository, query.ref))
  if (!commit) throw new NotFound()
  let authors = authorsByCommit.get(commit.oid)
  if (!authors) {
    authors = await readAuthors(repository.directory, commit.oid)
    if (authorsByCommit.size >= AUTHORS_KEPT) authorsByCommit.delete(authorsByCommit.keys().next().value as string)
    authorsByCommit.set(commit.oid, authors)
  }
  // Copies: the kept list is shared and the sort below reorders.
  const contributors = authors.map((author) => ({ ...author }))
  const direction = query.sort === 'desc' ? -1 : 1
  const compare =
    query.orderBy === 'commits'
      ? (a: Contributor, b: Contributor) => a.commits - b.commits
      : (a: Contributor, b: Contributor) => casecmp(a[query.orderBy as 'name' | 'email'], b[query.orderBy as 'name' | 'email'])
  return contributors.sort((a, b) => direction * compare(a, b))
}
