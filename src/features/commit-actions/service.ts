import type { Context } from '../../core/context.js'
import { BadRequest, DomainError, Forbidden, NotFound, Rejected } from '../../core/errors.js'
import { canPushCode, canReadCode, findProject, isFeatureAvailable, type LoadedProject } from '../access/index.js'
import { findProjectCommit } from '../commits/index.js'
import { recordPushEvent } from '../event-log/index.js'
import { noticeChange } from '../change-notices/index.js'
import { noticeSourceBranchPushes, recordVersionsAfterPush } from '../merge-requests/index.js'
import { assertMayChangeRef, type RefChange } from '../protected-refs/index.js'
import {
  codeDirectory,
  countNewCommits,
  diffStats,
  FileChangeError,
  identityOf,
  identityText,
  mergeTrees,
  moveRefIfUnchanged,
  projectRepositoryDirectory,
  readBranchHead,
  readCommit,
  refreshRepositoryState,
  repositoryExists,
  writeChangedTree,
  writeCommitObject,
  type FileChange,
  isAncestor,
  isValidRefName,
  pushCommitTitle,
  type ParsedCommit,
} from '../repositories/index.js'
import { decodeActions } from './actions.js'
import { fetchCommit, isObjectId, lastCommitForPath } from './repository.js'

// GL Commits::CreateService, Files::MultiService, Commits::CherryPickService and Commits::RevertService.

export const NOT_ALLOWED_TO_PUSH = 'You are not allowed to push into this branch'

/** A stale `last_commit_id`: the file's last commit on the start branch is not the one the client read. */
export interface LastCommitCheck {
  path: string
  lastCommitId: string
  /** What the refusal says (the files API and the commits API word it differently). */
  message: string
}

export interface CommitChangesInput {
  branch: string
  /** The branch to start from; absent: `branch` itself (unless `startSha`). */
  startBranch?: string
  startSha?: string
  message: string
  changes: FileChange[]
  checks?: LastCommitCheck[]
  authorName?: string
  authorEmail?: string
  force?: boolean
  /** The project the new branch starts from, when not this one: the project this one was forked from. */
  startProject?: LoadedProject
}

export interface WrittenCommit {
  commit: ParsedCommit
  directory: string
}

function userOf(ctx: Context) {
  const user = ctx.caller.user
  if (!user) throw new Forbidden()
  return user
}

/**
 * GL commits.rb's `before` block, which runs before any parameter is checked: 404 "Repository Not Found" when the
 * repository feature is off for the caller (`require_repository_enabled!`), 403 without `read_code`.
 */
export function assertMayReadRepository(ctx: Context, loaded: LoadedProject): void {
  if (!isFeatureAvailable(loaded.access, loaded.project, 'repository')) throw new NotFound('Repository')
  codeDirectory(ctx, loaded)
}

/** POST /repository/commits reads its body after `authorize_push_to_branch!`: who may push to no branch hears 403 first. */
export function assertMayCommit(ctx: Context, loaded: LoadedProject): void {
  if (!ctx.caller.user || !canPushCode(loaded.access, loaded.project)) throw new Forbidden(NOT_ALLOWED_TO_PUSH)
}

/** GL `Gitlab::UserAccess#can_push_to_branch?`: Developers and up, under the project's protected branches. */
async function mayPushToBranch(ctx: Context, loaded: LoadedProject, branch: string): Promise<boolean> {
  if (!ctx.caller.user || !canPushCode(loaded.access, loaded.project)) return false
  const head = await readBranchHead(projectRepositoryDirectory(ctx.config, loaded.project), branch)
  const change: RefChange = head === null ? 'create' : 'push'
  try {
    await assertMayChangeRef(ctx, loaded, `refs/heads/${branch}`, change)
    return true
  } catch (error) {
    if (error instanceof DomainError) return false
    throw error
  }
}

/** GL commits.rb `authorize_push_to_branch!`: 403 "You are not allowed to push into this branch". */
async function authorizePushToBranch(ctx: Context, loaded: LoadedProject, branch: string) {
  if (!(await mayPushToBranch(ctx, loaded, branch))) throw new Forbidden(NOT_ALLOWED_TO_PUSH)
}

/**
 * GL commits.rb `start_project`: the project the new branch starts from must be the one this project was forked from,
 * and its code readable (403 otherwise, this project itself included, as GitLab's `forked_from?` says).
 */
async function findStartProject(ctx: Context, loaded: LoadedProject, startProject: string | undefined): Promise<LoadedProject | undefined> {
  if (startProject === undefined) return undefined
  const start = await findProject(ctx, startProject)
  if (canReadCode(start.access, start.project) && loaded.project.forked_from_project_id === start.project.id) return start
  throw new Forbidden(`Project is not included in the fork network for ${start.project.full_name}`)
}

function lostRace(branch: string): Rejected {
  return new Rejected(`Could not update branch ${branch}. Please refresh and try again.`)
}

/** What a push of the branch records (GL Git::BranchPushService): its push event, then the project's repository state. */
async function recordBranchUpdate(
  ctx: Context,
  loaded: LoadedProject,
  directory: string,
  branch: string,
  before: string | null,
  after: ParsedCommit,
) {
  const user = userOf(ctx)
  const count = before === null || after.parents[0] === before ? 1 : await countNewCommits(directory, after.oid, before)
  const payload = {
    commit_count: count,
    action: before === null ? ('created' as const) : ('pushed' as const),
    ref_type: 'branch' as const,
    commit_from: before,
    commit_to: after.oid,
    ref: branch,
    commit_title: count > 0 ? pushCommitTitle(after.message) : null,
  }
  const at = ctx.now()
  const { project } = loaded
  const update = { ref: `refs/heads/${branch}`, before: before ?? '0'.repeat(after.oid.length), after: after.oid }
  await ctx.db.transaction().execute(async (trx) => {
    await recordPushEvent(trx, { projectId: project.id, authorId: user.id, at, payload })
    await noticeChange(ctx, trx, { kind: 'push', projectId: project.id, actorId: user.id, ...update, at })
    await noticeSourceBranchPushes(ctx, trx, project, { actorId: user.id, at, updates: [update] })
  })
  await refreshRepositoryState(ctx.db, ctx.config, project, {
    recorded: { emptyRepo: project.empty_repo === 1, defaultBranch: project.default_branch ?? '', readmePath: project.readme_path },
  })
  await recordVersionsAfterPush(ctx, project, [`refs/heads/${branch}`])
}

/** Refuses writes the project does not take now: no push rights (GL `push_code`), or a repository being moved. */
function assertWritable(ctx: Context, loaded: LoadedProject) {
  userOf(ctx)
  if (!canPushCode(loaded.access, loaded.project)) throw new Rejected(NOT_ALLOWED_TO_PUSH)
  if (loaded.project.repository_read_only === 1) throw new Rejected('The repository is temporarily read-only. Please try again later.')
}

/**
 * GL `validate_permissions!` (`can_push_to_branch?`): "You are not allowed to push into this branch". A force push is
 * judged afterwards as the server hooks judge it, with their own words.
 */
async function assertMayChange(ctx: Context, loaded: LoadedProject, branch: string, change: RefChange) {
  try {
    await assertMayChangeRef(ctx, loaded, `refs/heads/${branch}`, change)
  } catch (error) {
    if (error instanceof DomainError && change !== 'force-push') throw new Rejected(NOT_ALLOWED_TO_PUSH)
    throw error
  }
}

/**
 * Commits file changes onto a branch as one commit (GL Files::MultiService through Commits::CreateService#validate!),
 * refusing in GitLab's order with its words: push rights, `start_sha`, the start branch, an existing target branch,
 * the new branch's name, stale `last_commit_id`s, then what the tree refuses. The branch moves only if nobody moved it
 * meanwhile.
 */
export async function commitChanges(ctx: Context, loaded: LoadedProject, input: CommitChangesInput): Promise<WrittenCommit> {
  assertWritable(ctx, loaded)
  const user = userOf(ctx)
  const { project } = loaded
  const directory = projectRepositoryDirectory(ctx.config, project)
  if (!(await repositoryExists(directory))) throw new NotFound('Repository')
  const { branch, startSha } = input
  const force = input.force ?? false
  const startBranch = startSha === undefined ? (input.startBranch ?? branch) : input.startBranch
  const startProject = input.startProject?.project ?? project
  const startDirectory = projectRepositoryDirectory(ctx.config, startProject)
  const emptyRepo = project.empty_repo === 1
  const startEmpty = startProject.empty_repo === 1
  const branchHead = await readBranchHead(directory, branch)
  const differentBranch = startProject.id !== project.id || startBranch !== branch || startSha !== undefined
  await assertMayChange(ctx, loaded, branch, branchHead === null ? 'create' : 'push')

  let parent: string | null = null
  if (startSha !== undefined) {
    if (startBranch !== undefined) throw new Rejected("You can't pass both start_branch and start_sha")
    if (!isObjectId(startSha.toLowerCase())) throw new Rejected(`Invalid start_sha '${startSha}'`)
    const start = await readCommit(startDirectory, startSha.toLowerCase())
    if (!start) throw new Rejected(`Cannot find start_sha '${startSha}'`)
    parent = start.oid
  }
  if (startBranch !== undefined) {
    parent = startBranch === branch && startDirectory === directory ? branchHead : await readBranchHead(startDirectory, startBranch)
    if (!startEmpty && parent === null) throw new Rejected('You can only create or edit files when you are on a branch')
  }
  if (!emptyRepo && differentBranch && branchHead !== null && !force) {
    throw new Rejected(`A branch called '${branch}' already exists. Switch to that branch in order to make changes`)
  }
  if ((differentBranch || branchHead === null) && !isValidRefName(branch)) {
    throw new Rejected(`Something went wrong when we tried to create '${branch}' for you: Branch name is invalid`)
  }
  // `force` replaces the branch: a force push unless the new commit descends from the branch's head.
  if (force && branchHead !== null && parent !== branchHead && !(parent !== null && (await isAncestor(directory, branchHead, parent)))) {
    await assertMayChange(ctx, loaded, branch, 'force-push')
  }
  // A fork starts from its upstream's commit: the commit's objects are fetched into the fork first (as Gitaly does).
  if (parent !== null && startDirectory !== directory) await fetchCommit(directory, startDirectory, parent)
  // GL Files::BaseService#file_has_changed?: the file's last commit on the start branch against the one the client read.
  for (const check of input.checks ?? []) {
    if (startBranch === undefined || parent === null) continue
    const onBranch = await lastCommitForPath(directory, parent, check.path)
    if (onBranch === null || !isObjectId(check.lastCommitId)) continue
    const read = await lastCommitForPath(directory, check.lastCommitId, check.path)
    if (read !== null && read !== onBranch) throw new Rejected(check.message)
  }

  const parentCommit = parent === null ? null : await readCommit(directory, parent)
  let tree: string
  try {
    tree = await writeChangedTree(directory, parentCommit?.tree ?? null, input.changes)
  } catch (error) {
    if (error instanceof FileChangeError) throw new Rejected(error.message)
    throw error
  }
  const committer = identityOf(user)
  const author = {
    name: identityText(input.authorName) || committer.name,
    email: identityText(input.authorEmail) || committer.email,
  }
  const oid = await writeCommitObject(directory, {
    tree,
    parents: parent === null ? [] : [parent],
    message: input.message,
    author,
    committer,
    at: ctx.now(),
  })
  if (!(await moveRefIfUnchanged(directory, `refs/heads/${branch}`, oid, branchHead))) throw lostRace(branch)
  const commit = await readCommit(directory, oid)
  if (!commit) throw new Error(`the commit ${oid} just written cannot be read`)
  await recordBranchUpdate(ctx, loaded, directory, branch, branchHead, commit)
  return { commit, directory }
}

export interface CreateCommitInput {
  branch: string
  startBranch?: string
  startSha?: string
  /** The id or path of the project the new branch starts from. */
  startProject?: string
  message: string
  /** The actions as the client sent them, decoded here (GL `validate_commits_attrs!`). */
  actions: readonly unknown[]
  authorName?: string
  authorEmail?: string
  force?: boolean
  /** Whether the answer carries the commit's stats. */
  stats: boolean
}

/**
 * POST /projects/:id/repository/commits (GL commits.rb): the start project, `authorize_push_to_branch!`, the values
 * GitLab requires, the actions, then the commit (commitChanges), in GitLab's order.
 */
export async function createCommit(
  ctx: Context,
  loaded: LoadedProject,
  input: CreateCommitInput,
): Promise<{ commit: ParsedCommit; stats: CommitStats | null }> {
  const startProject = await findStartProject(ctx, loaded, input.startProject)
  await authorizePushToBranch(ctx, loaded, input.branch)
  if (input.branch.trim() === '') throw new BadRequest('branch is required')
  if (input.message.trim() === '') throw new BadRequest('commit_message is required')
  if (input.actions.length === 0) throw new BadRequest('actions is required')
  if (input.startBranch !== undefined && input.startSha !== undefined)
    throw new BadRequest('start_branch, start_sha are mutually exclusive')
  const { changes, checks } = decodeActions(input.actions)
  const { commit, directory } = await commitChanges(ctx, loaded, {
    branch: input.branch,
    startBranch: input.startBranch,
    startSha: input.startSha,
    message: input.message,
    changes,
    checks,
    authorName: input.authorName,
    authorEmail: input.authorEmail,
    force: input.force,
    startProject,
  })
  return { commit, stats: input.stats ? await commitStats(directory, commit) : null }
}

export interface CommitStats {
  additions: number
  deletions: number
  total: number
}

/** The lines added and removed by a commit against its first parent, for the commit detail entity (GL CommitStats). */
async function commitStats(directory: string, commit: ParsedCommit): Promise<CommitStats> {
  const { additions, deletions } = await diffStats(directory, commit.parents[0] ?? null, commit.oid)
  return { additions, deletions, total: additions + deletions }
}

/** A cherry-pick or revert that failed, as GitLab answers it: its message and, for a tree that could not be made, a code. */
export class ChangeFailed extends Error {
  constructor(
    message: string,
    readonly errorCode: 'conflict' | 'empty' | null = null,
  ) {
    super(message)
  }
}

export type ChangeKind = 'cherry_pick' | 'revert'

export interface ChangeInput {
  branch: string
  dryRun: boolean
  /** The cherry-pick's message; GitLab's own when absent. */
  message?: string
}

// GL Commits::ChangeService#commit_change.
const CANNOT_DO_AUTOMATICALLY =
  "Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of " +
  'this content. Please perform this action locally.'

function changeFailure(kind: ChangeKind, code: 'conflict' | 'empty'): ChangeFailed {
  const status = kind === 'cherry_pick' ? 'Commit cherry-pick failed' : 'Commit revert failed'
  return new ChangeFailed(`${status}: ${CANNOT_DO_AUTOMATICALLY}`, code)
}

/** GL Commit#title: the first line of the message. */
function titleOf(message: string): string {
  return message.split('\n', 1)[0]
}

/** GL Commit#cherry_pick_message with the Co-authored-by trailer of GL Commits::CherryPickService. */
function cherryPickMessage(commit: ParsedCommit): string {
  return `${commit.message}\n\n(cherry-picked from commit ${commit.oid})\n\nCo-authored-by: ${commit.author.name} <${commit.author.email}>`
}

/** GL Commit#revert_message. */
function revertMessage(commit: ParsedCommit): string {
  return `Revert "${titleOf(commit.message).trim()}"\n\nThis reverts commit ${commit.oid}`
}

/** The head of a project's branch: 404 "Branch Not Found" when there is none (GL `find_branch!`). */
async function findBranch(ctx: Context, loaded: LoadedProject, branch: string): Promise<string> {
  const head = await readBranchHead(codeDirectory(ctx, loaded), branch)
  if (head === null) throw new NotFound('Branch')
  return head
}

/**
 * POST /projects/:id/repository/commits/:sha/cherry_pick and /revert (GL commits.rb): `authorize_push_to_branch!`, the
 * commit (404 "Commit Not Found"), the branch (404 "Branch Not Found"), then the change.
 */
export async function changeCommit(
  ctx: Context,
  loaded: LoadedProject,
  sha: string,
  kind: ChangeKind,
  input: ChangeInput,
): Promise<ParsedCommit | null> {
  await authorizePushToBranch(ctx, loaded, input.branch)
  const { commit } = await findProjectCommit(ctx, loaded, sha)
  await findBranch(ctx, loaded, input.branch)
  return applyCommitChange(ctx, loaded, commit, kind, input)
}

/**
 * Cherry-picks or reverts a commit onto a branch (GL Commits::CherryPickService, Commits::RevertService over Gitaly's
 * UserCherryPick and UserRevert): a three-way merge of the commit's change into the branch's tree, committed by the
 * caller on top of the branch, or only tried with `dryRun`. Answers the new commit, or null for a dry run; refusals
 * are ChangeFailed.
 */
async function applyCommitChange(
  ctx: Context,
  loaded: LoadedProject,
  commit: ParsedCommit,
  kind: ChangeKind,
  input: ChangeInput,
): Promise<ParsedCommit | null> {
  try {
    assertWritable(ctx, loaded)
    await assertMayChange(ctx, loaded, input.branch, 'push')
  } catch (error) {
    if (error instanceof Rejected) throw new ChangeFailed(error.message)
    throw error
  }
  const user = userOf(ctx)
  const directory = projectRepositoryDirectory(ctx.config, loaded.project)
  const head = await readBranchHead(directory, input.branch)
  const headCommit = head === null ? null : await readCommit(directory, head)
  if (!headCommit) throw new ChangeFailed('You can only create or edit files when you are on a branch')
  // A merge commit is picked against its first parent (Gitaly's mainline 1).
  const firstParent = commit.parents.length > 0 ? await readCommit(directory, commit.parents[0]) : null
  const parentTree = firstParent?.tree ?? null
  const [base, theirs] = kind === 'cherry_pick' ? [parentTree, commit.tree] : [commit.tree, parentTree]
  const tree = await mergeTrees(directory, base, headCommit.tree, theirs)
  if (tree === null) throw changeFailure(kind, 'conflict')
  if (tree === headCommit.tree) throw changeFailure(kind, 'empty')
  if (input.dryRun) return null
  const identity = identityOf(user)
  const message = kind === 'cherry_pick' ? (input.message ?? cherryPickMessage(commit)) : revertMessage(commit)
  const oid = await writeCommitObject(directory, {
    tree,
    parents: [headCommit.oid],
    message,
    author: identity,
    committer: identity,
    at: ctx.now(),
  })
  if (!(await moveRefIfUnchanged(directory, `refs/heads/${input.branch}`, oid, headCommit.oid)))
    throw new ChangeFailed(lostRace(input.branch).message)
  const written = await readCommit(directory, oid)
  if (!written) throw new Error(`the commit ${oid} just written cannot be read`)
  await recordBranchUpdate(ctx, loaded, directory, input.branch, headCommit.oid, written)
  return written
}
