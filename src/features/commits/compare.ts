import { randomUUID } from 'node:crypto'
import type { Context } from '../../core/context.js'
import { NotFound, Rejected } from '../../core/errors.js'
import type { ProjectRow } from '../../db/schema.js'
import {
  codeDirectory,
  diffBetween,
  findCommit,
  git,
  GitError,
  projectRepositoryDirectory,
  readCommit,
  type DiffResult,
  type ParsedCommit,
} from '../repositories/index.js'
import { canReadCode, findProjectsByIds, withAccess, type LoadedProject } from '../access/index.js'
import { inSameForkNetwork } from '../projects/index.js'

export interface Comparison {
  /** Oldest first, as GitLab lists them. */
  commits: ParsedCommit[]
  diff: DiffResult
  same: boolean
  startSha: string
  headSha: string
}

/**
 * GL `fetch_target_project` (MergeRequestTargetProjectFinder): a project of the same fork network whose code the
 * caller may read; else 400 "Target project id:<from> is not a fork of project id:<id>".
 */
async function fromProjectOf(ctx: Context, loaded: LoadedProject, fromProjectId: string | undefined, idParam: string): Promise<ProjectRow> {
  if (fromProjectId === undefined || fromProjectId === '') return loaded.project
  const refuse = () => new Rejected(`Target project id:${fromProjectId} is not a fork of project id:${idParam}`)
  if (!/^\d+$/.test(fromProjectId)) throw refuse()
  const id = Number(fromProjectId)
  if (id === loaded.project.id) return loaded.project
  const [project] = Number.isSafeInteger(id) ? await findProjectsByIds(ctx.db, [id]) : []
  if (!project || project.pending_delete) throw refuse()
  const { access } = await withAccess(ctx, project)
  if (!canReadCode(access, project)) throw refuse()
  if (!(await inSameForkNetwork(ctx.db, project, loaded.project))) throw refuse()
  return project
}

/** Commits in `to` that `from` lacks, oldest first (GL Commit.between, Gitaly ListCommits `--reverse`). */
async function commitsBetween(directory: string, from: string, to: string): Promise<ParsedCommit[]> {
  const out = await git(['rev-list', '--reverse', `${from}..${to}`], { gitDir: directory })
  const commits = await Promise.all(
    out
      .split('\n')
      .filter(Boolean)
      .map((oid) => readCommit(directory, oid)),
  )
  return commits.filter((commit): commit is ParsedCommit => commit !== null)
}

async function mergeBaseOf(directory: string, a: string, b: string): Promise<string | null> {
  try {
    return (await git(['merge-base', a, b], { gitDir: directory })).trim() || null
  } catch (error) {
    if (error instanceof GitError) return null
    throw error
  }
}

/**
 * GET /projects/:id/repository/compare (GL CompareService, Gitlab::Git::Compare): `from` is read in the from-project
 * (this project unless `from_project_id`), `to` in this one; commits are those of `to` that `from` lacks, and the diff
 * runs from their merge base unless `straight`. A from-project's commit is fetched into a temporary ref here, as
 * GitLab's compare_source_branch does, and the ref removed after. 404 "Ref Not Found" when either ref names nothing.
 */
export async function compareRefs(
  ctx: Context,
  loaded: LoadedProject,
  input: { from: string; to: string; fromProjectId?: string; idParam: string; straight: boolean },
): Promise<Comparison> {
  const directory = codeDirectory(ctx, loaded)
  const fromProject = await fromProjectOf(ctx, loaded, input.fromProjectId, input.idParam)
  const fromDirectory = fromProject.id === loaded.project.id ? directory : projectRepositoryDirectory(ctx.config, fromProject)
  const [start, head] = await Promise.all([findCommit(fromDirectory, input.from.trim()), findCommit(directory, input.to.trim())])
  if (!start || !head) throw new NotFound('Ref')
  let temporaryRef: string | null = null
  try {
    if (fromDirectory !== directory && !(await readCommit(directory, start.oid))) {
      // A repository being moved takes no ref writes, so the from-project's commit cannot be brought in.
      if (loaded.project.repository_read_only === 1) throw new NotFound('Ref')
      temporaryRef = `refs/tmp/compare-${randomUUID()}`
      await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', fromDirectory, `+${start.oid}:${temporaryRef}`], {
        gitDir: directory,
      })
    }
    if (start.oid === head.oid) {
      return { commits: [], diff: { files: [], overflow: false }, same: true, startSha: start.oid, headSha: head.oid }
    }
    const base = input.straight ? start.oid : ((await mergeBaseOf(directory, start.oid, head.oid)) ?? start.oid)
    const [commits, diff] = await Promise.all([commitsBetween(directory, start.oid, head.oid), diffBetween(directory, base, head.oid)])
    return { commits, diff, same: false, startSha: start.oid, headSha: head.oid }
  } finally {
    if (temporaryRef) await git(['update-ref', '-d', temporaryRef], { gitDir: directory }).catch(() => undefined)
  }
}
