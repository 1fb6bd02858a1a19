import type { Context } from '../../core/context.js'
import type { MergeRequestDiffRow, MergeRequestRow, ProjectRow } from '../../db/schema.js'
import { git, projectRepositoryDirectory, readBranchHead, repositoryExists } from '../repositories/index.js'
import { fetchSourceInto, mergeRequestHeadRef, readBranchFacts, readRef, type BranchFacts } from './repository.js'
import { findProjectsByIds } from '../access/index.js'
import { hasUnresolvedThreads } from '../notes/index.js'
import { diffRefsOf, reconcileVersion, type DiffRefs } from './versions.js'

/** A merge request's branches as its repositories have them. */
export interface LoadedBranches {
  targetDir: string
  sourceDir: string | null
  /** The source project: the target itself, or a fork of it; null when it is gone. */
  sourceProject: ProjectRow | null
  facts: BranchFacts
  /** The latest version of the merge request's diff, recorded first when the source branch has moved. */
  version: MergeRequestDiffRow | null
}

/** What the entity shows once the repository has been looked at. */
export interface MergeabilityView {
  sha: string | null
  mergeStatus: string
  detailedMergeStatus: string
  hasConflicts: boolean
  diffRefs: DiffRefs | null
  /** GL `changes_count`: the latest version's real_size. */
  changesCount: string | null
}

async function sourceProjectOf(ctx: Context, row: MergeRequestRow, target: ProjectRow): Promise<ProjectRow | null> {
  const id = row.source_project_id ?? row.project_id
  if (id === target.id) return target
  const [source] = await findProjectsByIds(ctx.db, [id])
  return source ?? null
}

/**
 * Reads the merge request's branches. A fork's source commit is fetched into the target repository's
 * refs/merge-requests/<iid>/head first, so that merge bases and merges can be computed there. A merged merge request's
 * head is that ref. Null when the target project has no repository.
 */
export async function loadBranches(ctx: Context, row: MergeRequestRow, target: ProjectRow): Promise<LoadedBranches | null> {
  const branches = await readBranches(ctx, row, target)
  if (branches === null) return null
  // A repository being moved to another storage takes no ref writes: no new version until the move ends.
  const writable = target.repository_read_only !== 1
  return { ...branches, version: await reconcileVersion(ctx, row, branches.targetDir, branches.facts, { writable }) }
}

async function readBranches(ctx: Context, row: MergeRequestRow, target: ProjectRow): Promise<Omit<LoadedBranches, 'version'> | null> {
  const targetDir = projectRepositoryDirectory(ctx.config, target)
  if (!(await repositoryExists(targetDir))) return null
  const headRef = mergeRequestHeadRef(row.iid)
  if (row.state === 'merged') {
    const sourceSha = await readRef(targetDir, headRef)
    const facts = { sourceSha, targetSha: null, baseSha: null, hasCommits: true, fastForwardPossible: false, conflicts: false }
    return { targetDir, sourceDir: null, sourceProject: null, facts }
  }
  const sourceProject = await sourceProjectOf(ctx, row, target)
  let sourceDir: string | null = null
  let sourceSha: string | null = null
  if (sourceProject) {
    sourceDir = projectRepositoryDirectory(ctx.config, sourceProject)
    sourceSha = await readBranchHead(sourceDir, row.source_branch)
    if (sourceSha !== null && sourceProject.id !== target.id) {
      if (!(await fetchSourceInto(targetDir, sourceDir, row.source_branch, sourceSha, row.iid))) sourceSha = null
    }
  }
  const targetSha = await readBranchHead(targetDir, row.target_branch)
  if (sourceSha === null) {
    // GL keeps the last diff's head after the source branch is gone.
    const kept = await readRef(targetDir, headRef)
    return {
      targetDir,
      sourceDir,
      sourceProject,
      facts: { sourceSha: kept, targetSha, baseSha: null, hasCommits: false, fastForwardPossible: false, conflicts: false },
    }
  }
  return { targetDir, sourceDir, sourceProject, facts: await readBranchFacts(targetDir, sourceSha, targetSha) }
}

/** Whether the source branch still exists with commits to merge into an existing target branch. */
function hasMergeableCommits(facts: BranchFacts): boolean {
  return facts.sourceSha !== null && facts.targetSha !== null && facts.hasCommits
}

/** GL MergeRequest#squash_on_merge?: the project's squash option decides, unless it leaves it to the merge request. */
export function squashesOnMerge(project: ProjectRow, row: MergeRequestRow): boolean {
  if (project.squash_option === 'always') return true
  if (project.squash_option === 'never') return false
  return row.squash === 1
}

/** GL Project#ff_merge_must_be_possible?: fast-forward and semi-linear merge methods. */
export function requiresFastForward(project: ProjectRow): boolean {
  return project.merge_method === 'ff' || project.merge_method === 'rebase_merge'
}

/** What the checks read besides the repository. */
export interface MergeChecksInput {
  /** Whether every thread that can be resolved is (GL MergeRequest#mergeable_discussions_state?). */
  discussionsResolved: boolean
}

const NOTHING_UNRESOLVED: MergeChecksInput = { discussionsResolved: true }

/**
 * GL DetailedMergeStatusService with the checks svc has, in GitLab's order (MergeRequest.mergeable_state_checks, then
 * mergeable_git_state_checks): not_open, draft_status, commits_status, discussions_not_resolved, ci_must_pass,
 * conflict, need_rebase; else mergeable.
 */
export function detailedMergeStatusOf(
  row: MergeRequestRow,
  project: ProjectRow,
  branches: LoadedBranches,
  checks: MergeChecksInput = NOTHING_UNRESOLVED,
): string {
  if (row.state !== 'opened') return 'not_open'
  if (row.draft === 1) return 'draft_status'
  const { facts } = branches
  if (!hasMergeableCommits(facts) || branches.sourceProject === null) return 'commits_status'
  // GL CheckDiscussionsStatusService: only when the project asks for every thread to be resolved.
  if (project.only_allow_merge_if_all_discussions_are_resolved === 1 && !checks.discussionsResolved) return 'discussions_not_resolved'
  // Without pipelines, a project that requires a successful one can merge nothing (GL CheckCiStatusService).
  if (project.only_allow_merge_if_pipeline_succeeds === 1) return 'ci_must_pass'
  if (facts.conflicts) return 'conflict'
  if (requiresFastForward(project) && !facts.fastForwardPossible) return 'need_rebase'
  return 'mergeable'
}

/** GL MergeRequest#merge_status after a check (MergeabilityCheckService): broken or conflicting ones cannot be merged. */
function mergeStatusOf(row: MergeRequestRow, branches: LoadedBranches): string {
  if (row.state === 'merged') return 'can_be_merged'
  const { facts } = branches
  return hasMergeableCommits(facts) && !facts.conflicts ? 'can_be_merged' : 'cannot_be_merged'
}

/** The entity's repository fields; without a repository nothing has been checked. */
export function mergeabilityOf(
  row: MergeRequestRow,
  project: ProjectRow,
  branches: LoadedBranches | null,
  checks: MergeChecksInput = NOTHING_UNRESOLVED,
): MergeabilityView {
  if (branches === null) {
    const merged = row.state === 'merged'
    return {
      sha: null,
      mergeStatus: merged ? 'can_be_merged' : 'unchecked',
      detailedMergeStatus: merged ? 'not_open' : 'unchecked',
      hasConflicts: false,
      diffRefs: null,
      changesCount: null,
    }
  }
  const { facts } = branches
  const mergeStatus = mergeStatusOf(row, branches)
  // GL MergeRequest#diff_refs: the latest version's, whatever the state (a merged one keeps its last).
  const diffRefs = branches.version
    ? diffRefsOf(branches.version)
    : row.state !== 'merged' && facts.sourceSha !== null && facts.targetSha !== null
      ? { base_sha: facts.baseSha, head_sha: facts.sourceSha, start_sha: facts.targetSha }
      : null
  return {
    sha: facts.sourceSha,
    mergeStatus,
    detailedMergeStatus: detailedMergeStatusOf(row, project, branches, checks),
    hasConflicts: mergeStatus === 'cannot_be_merged',
    diffRefs,
    changesCount: branches.version?.real_size ?? null,
  }
}

/** A repository's branches and merge request head refs (full name → commit), read by one git process; null without one. */
async function readHeadRefs(directory: string): Promise<Map<string, string> | null> {
  if (!(await repositoryExists(directory))) return null
  const out = await git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/merge-requests/'], { gitDir: directory })
  const refs = new Map<string, string>()
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ')
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space))
  }
  return refs
}

/**
 * The head commit (`sha`) of each merge request of a page, with one git process per repository involved rather than
 * per merge request: the source branch's head, or the kept refs/merge-requests/<iid>/head once merged or gone.
 */
export async function headShasOf(
  ctx: Context,
  rows: readonly MergeRequestRow[],
  known: readonly ProjectRow[],
): Promise<Map<number, string>> {
  const projects = new Map(known.map((project) => [project.id, project]))
  const missing = [...new Set(rows.map((row) => row.source_project_id ?? row.project_id))].filter((id) => !projects.has(id))
  for (const project of await findProjectsByIds(ctx.db, missing)) projects.set(project.id, project)
  const ids = [...new Set(rows.flatMap((row) => [row.project_id, row.source_project_id ?? row.project_id]))].filter((id) =>
    projects.has(id),
  )
  const refsById = new Map(
    await Promise.all(ids.map(async (id) => [id, await readHeadRefs(projectRepositoryDirectory(ctx.config, projects.get(id)!))] as const)),
  )
  const shas = new Map<number, string>()
  for (const row of rows) {
    const kept = refsById.get(row.project_id)?.get(mergeRequestHeadRef(row.iid))
    const source =
      row.state === 'merged' ? undefined : refsById.get(row.source_project_id ?? row.project_id)?.get(`refs/heads/${row.source_branch}`)
    const sha = source ?? kept
    if (sha !== undefined) shas.set(row.id, sha)
  }
  return shas
}

/** The checks' input read from the database: the merge request's unresolved threads. */
export async function mergeChecksInputOf(ctx: Context, row: MergeRequestRow, project: ProjectRow): Promise<MergeChecksInput> {
  if (project.only_allow_merge_if_all_discussions_are_resolved !== 1) return NOTHING_UNRESOLVED
  return { discussionsResolved: !(await hasUnresolvedThreads(ctx.db, row.id)) }
}

/** How many commits the target branch has that the source lacks (GL MergeRequest#diverged_commits_count); 0 when unknown. */
export async function commitsBehindOf(branches: LoadedBranches | null): Promise<number> {
  const facts = branches?.facts
  if (!branches || !facts || facts.targetSha === null || facts.sourceSha === null || facts.baseSha === null) return 0
  const out = await git(['rev-list', '--count', `${facts.baseSha}..${facts.targetSha}`], { gitDir: branches.targetDir })
  return Number(out.trim()) || 0
}
