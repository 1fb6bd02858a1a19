import type { Context } from '../../core/context.js'
import { Forbidden, NotFound, PreconditionFailed, Rejected } from '../../core/errors.js'
import { canAdminProject, canPushCode, type LoadedProject } from '../access/index.js'
import {
  assertMayChangeRef,
  canPushToBranch,
  developersCan,
  isBranchProtected,
  loadRefSubject,
  protectBranchByLegacyApi,
  unprotectBranchByLegacyApi,
  type RefSubject,
} from '../protected-refs/index.js'
import {
  commitFirstFile,
  git,
  GitError,
  codeDirectory,
  isAncestor,
  isClientRevision,
  isValidRefName,
  pushCommitTitle,
  readBranchHead,
  readCommit,
  refreshRepositoryState,
  repositoryExists,
  type ParsedCommit,
} from '../repositories/index.js'
import { noticeChange } from '../change-notices/index.js'
import { recordPushEvent, type PushPayload } from '../event-log/index.js'
import { findOpenMergeRequestBranchNames } from './store.js'

/** A branch as its entity shows it to the caller. */
export interface BranchView {
  name: string
  commit: ParsedCommit
  merged: boolean
  isProtected: boolean
  developersCanPush: boolean
  developersCanMerge: boolean
  canPush: boolean
  isDefault: boolean
}

/** GL `authorize_push_project`. */
function assertMayPush(loaded: LoadedProject) {
  if (!canPushCode(loaded.access, loaded.project)) throw new Forbidden()
}

/** Every branch and its tip, sorted by name, in one `git for-each-ref`. */
async function readBranchTips(directory: string): Promise<Map<string, string>> {
  const tips = new Map<string, string>()
  if (!(await repositoryExists(directory))) return tips
  const out = await git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'], { gitDir: directory })
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ')
    if (space > 0) tips.set(line.slice(space + 1 + 'refs/heads/'.length), line.slice(0, space))
  }
  return tips
}

/**
 * GL Repository#merged_branch_names: the branches whose tip the default branch contains, without those at its very
 * tip; one `git for-each-ref --merged`.
 */
async function readMergedBranchNames(directory: string, defaultTip: string | undefined): Promise<Set<string>> {
  if (!defaultTip) return new Set()
  const out = await git(['for-each-ref', `--merged=${defaultTip}`, '--format=%(objectname) %(refname)', 'refs/heads/'], {
    gitDir: directory,
  })
  const names = new Set<string>()
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ')
    if (space > 0 && line.slice(0, space) !== defaultTip) names.add(line.slice(space + 1 + 'refs/heads/'.length))
  }
  return names
}

/** GL Repository#merged_to_root_ref? for one branch: its tip is in the default branch and is not the default's tip. */
async function isMergedToDefault(directory: string, tip: string, defaultTip: string | null): Promise<boolean> {
  if (!defaultTip || tip === defaultTip) return false
  return isAncestor(directory, tip, defaultTip)
}

function viewOf(subject: RefSubject, name: string, commit: ParsedCommit, merged: boolean): BranchView {
  return {
    name,
    commit,
    merged,
    isProtected: isBranchProtected(subject, name),
    developersCanPush: developersCan(subject.protection, 'push', name),
    developersCanMerge: developersCan(subject.protection, 'merge', name),
    canPush: canPushToBranch(subject, name),
    isDefault: subject.project.default_branch === name,
  }
}

async function commitAt(directory: string, oid: string): Promise<ParsedCommit> {
  const commit = await readCommit(directory, oid)
  if (!commit) throw new Error(`the tip ${oid} of a branch is no commit`)
  return commit
}

export interface ListBranchesInput {
  search?: string
  regex?: string
  sort?: 'name_asc' | 'updated_asc' | 'updated_desc'
  pageToken?: string
  keyset: boolean
  page: number
  perPage: number
}

/** What a list request answers: the branches, and what its pagination headers say. */
export interface BranchPage {
  branches: BranchView[]
  /** Every branch of the repository (GL BranchesFinder#total), for the first page's headers. */
  branchCount: number
  /** The filtered list's length, for later pages' headers. */
  matchCount: number
  /** The list was read the way GitLab reads a first page (GL GitalyKeysetPager#paginate_first_page_via_gitaly). */
  firstPage: boolean
}

/** GL GitRefsFinder#by_search: `^` and `$` anchor and `*` is a wildcard (then no exact match first), case-insensitive. */
function searchFilter(search: string): { matches: (name: string) => boolean; isRegex: boolean } {
  const isRegex = /[\^$*]/.test(search)
  let source = search.toLowerCase().replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
  if (isRegex) source = source.replace('\\^', '^').replace(/\\\*/g, '.*?').replace('\\$', '$')
  const pattern = new RegExp(source, 's')
  return { matches: (name) => pattern.test(name.toLowerCase()), isRegex }
}

/** GL BranchesFinder#by_regex (an untrusted RE2 expression); one that does not compile matches nothing. */
function regexFilter(regex: string): (name: string) => boolean {
  let pattern: RegExp
  try {
    pattern = new RegExp(regex, 'u')
  } catch {
    return () => false
  }
  return (name) => pattern.test(name)
}

/** GET /projects/:id/repository/branches (GL BranchesFinder through GitalyKeysetPager). */
export async function listBranches(ctx: Context, loaded: LoadedProject, input: ListBranchesInput): Promise<BranchPage> {
  const directory = codeDirectory(ctx, loaded)
  const tips = await readBranchTips(directory)
  let names = [...tips.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const commits = new Map<string, ParsedCommit>()
  if (input.sort === 'updated_asc' || input.sort === 'updated_desc') {
    for (const name of names) commits.set(name, await commitAt(directory, tips.get(name) as string))
    const direction = input.sort === 'updated_asc' ? 1 : -1
    const time = (name: string) => Date.parse((commits.get(name) as ParsedCommit).committer.date)
    names.sort((a, b) => direction * (time(a) - time(b)) || (a < b ? -1 : a > b ? 1 : 0))
  }
  const filtered = (input.search !== undefined && input.search !== '') || (input.regex !== undefined && input.regex !== '')
  if (input.search) {
    const search = input.search
    const { matches, isRegex } = searchFilter(search)
    names = names.filter(matches)
    if (!isRegex) {
      const exact = names.findIndex((name) => name.toLowerCase() === search.toLowerCase())
      if (exact > 0) names.unshift(...names.splice(exact, 1))
    }
  }
  if (input.regex) names = names.filter(regexFilter(input.regex))
  const matchCount = names.length
  let pageNames: string[]
  let firstPage = false
  if (input.keyset && !filtered) {
    const after = input.pageToken
    const start = after === undefined ? 0 : names.findIndex((name) => name > after)
    pageNames = start < 0 ? [] : names.slice(start, start + input.perPage)
  } else if (input.page === 1) {
    // GitLab's first page comes from Gitaly: the first page of all branches, or every match of a search.
    firstPage = true
    pageNames = filtered ? names : names.slice(0, input.perPage)
  } else {
    const offset = (input.page - 1) * input.perPage
    pageNames = names.slice(offset, offset + input.perPage)
  }
  const subject = await loadRefSubject(ctx, loaded)
  const defaultBranch = loaded.project.default_branch ?? ''
  const merged = await readMergedBranchNames(directory, tips.get(defaultBranch))
  const branches: BranchView[] = []
  for (const name of pageNames) {
    const commit = commits.get(name) ?? (await commitAt(directory, tips.get(name) as string))
    branches.push(viewOf(subject, name, commit, merged.has(name)))
  }
  return { branches, branchCount: tips.size, matchCount, firstPage }
}

/** GET /projects/:id/repository/branches/:branch: 404 "Branch Not Found" when there is none. */
export async function showBranch(ctx: Context, loaded: LoadedProject, name: string): Promise<BranchView> {
  const directory = codeDirectory(ctx, loaded)
  const tip = await readBranchHead(directory, name)
  if (!tip) throw new NotFound('Branch')
  const defaultBranch = loaded.project.default_branch ?? ''
  const defaultTip = name === defaultBranch ? tip : await readBranchHead(directory, defaultBranch)
  const [commit, merged, subject] = await Promise.all([
    commitAt(directory, tip),
    isMergedToDefault(directory, tip, defaultTip),
    loadRefSubject(ctx, loaded),
  ])
  return viewOf(subject, name, commit, merged)
}

/** HEAD /projects/:id/repository/branches/:branch. */
export async function branchExists(ctx: Context, loaded: LoadedProject, name: string): Promise<boolean> {
  return (await readBranchHead(codeDirectory(ctx, loaded), name)) !== null
}

/**
 * The push event GitLab's post-receive records for a branch the API created or removed (GL Git::BranchPushService):
 * a new branch counts the commits the default branch does not have.
 */
async function recordBranchEvent(
  ctx: Context,
  loaded: LoadedProject,
  directory: string,
  name: string,
  from: string | null,
  to: string | null,
) {
  const user = ctx.caller.user
  if (!user) return
  let count = 0
  let title: string | null = null
  if (to !== null) {
    const defaultTip = name === loaded.project.default_branch ? null : await readBranchHead(directory, loaded.project.default_branch ?? '')
    const exclude = defaultTip ? ['--not', defaultTip] : []
    count = Number((await git(['rev-list', '--count', to, ...exclude], { gitDir: directory })).trim())
    if (count > 0) title = pushCommitTitle((await commitAt(directory, to)).message)
  }
  const payload: PushPayload = {
    commit_count: count,
    action: from === null ? 'created' : 'removed',
    ref_type: 'branch',
    commit_from: from,
    commit_to: to,
    ref: name,
    commit_title: title,
  }
  const at = ctx.now()
  const blank = '0'.repeat((from ?? to ?? '').length)
  await ctx.db.transaction().execute(async (trx) => {
    await recordPushEvent(trx, { projectId: loaded.project.id, authorId: user.id, at, payload })
    const update = { ref: `refs/heads/${name}`, before: from ?? blank, after: to ?? blank }
    await noticeChange(ctx, trx, { kind: 'push', projectId: loaded.project.id, actorId: user.id, ...update, at })
  })
}

/** GL Branches::CreateService#create_default_branch: an empty repository gets an empty README on its default branch first. */
async function createDefaultBranch(ctx: Context, loaded: LoadedProject, directory: string): Promise<void> {
  const user = ctx.caller.user
  const branch = loaded.project.default_branch ?? 'main'
  if (!user || (await readBranchHead(directory, branch))) return
  await assertMayChangeRef(ctx, loaded, `refs/heads/${branch}`, 'create')
  const created = await commitFirstFile({
    directory,
    branch,
    path: 'README.md',
    content: '',
    message: 'Add README.md',
    author: { name: user.name, email: user.email },
    at: ctx.now(),
  })
  // Another request made the branch first: it is there either way.
  if (created === null) return
  await recordBranchEvent(ctx, loaded, directory, branch, null, created)
}

/** POST /projects/:id/repository/branches (GL Branches::CreateService): refusals are 400 with GitLab's message. */
export async function createBranch(ctx: Context, loaded: LoadedProject, name: string, ref: string): Promise<BranchView> {
  const directory = codeDirectory(ctx, loaded)
  assertMayPush(loaded)
  // Checked before an empty repository gets its default branch (GitLab makes it first), so a refusal changes nothing.
  if (!isValidRefName(name)) throw new Rejected('Branch name is invalid')
  const wasEmpty = loaded.project.empty_repo === 1
  if (wasEmpty) await createDefaultBranch(ctx, loaded, directory)
  if (await readBranchHead(directory, name)) throw new Rejected('Branch already exists')
  const start = isClientRevision(ref) ? await readCommit(directory, ref) : null
  if (!start) throw new Rejected(`Failed to create branch '${name}': invalid reference name '${ref}'`)
  await assertMayChangeRef(ctx, loaded, `refs/heads/${name}`, 'create')
  try {
    // The empty old value makes git refuse should the branch have appeared meanwhile.
    await git(['update-ref', `refs/heads/${name}`, start.oid, ''], { gitDir: directory })
  } catch (error) {
    if (!(error instanceof GitError)) throw error
    if (/exists; cannot create/.test(error.stderr)) {
      throw new Rejected(`Failed to create branch '${name}': Branch name conflicts with existing branch hierarchy.`)
    }
    // The ref is there, or another request holds its lock to make it.
    if ((await readBranchHead(directory, name)) || /\.lock': File exists/.test(error.stderr)) throw new Rejected('Branch already exists')
    throw error
  }
  if (wasEmpty) {
    const state = await refreshRepositoryState(ctx.db, ctx.config, loaded.project)
    loaded.project = { ...loaded.project, empty_repo: state.emptyRepo ? 1 : 0, default_branch: state.defaultBranch }
  }
  await recordBranchEvent(ctx, loaded, directory, name, null, start.oid)
  return showBranch(ctx, loaded, name)
}

/**
 * DELETE /projects/:id/repository/branches/:branch (GL Branches::DeleteService): the default branch and, for those
 * below Maintainer, protected ones are refused with GitLab's 400; the ref goes only if it still points where it did.
 */
export async function deleteBranch(ctx: Context, loaded: LoadedProject, name: string, unmodifiedSince: Date | null): Promise<void> {
  const directory = codeDirectory(ctx, loaded)
  assertMayPush(loaded)
  const tip = await readBranchHead(directory, name)
  if (!tip) throw new NotFound('Branch')
  if (unmodifiedSince) {
    const commit = await commitAt(directory, tip)
    if (Date.parse(commit.author.date) > unmodifiedSince.getTime()) throw new PreconditionFailed()
  }
  await removeBranch(ctx, loaded, directory, name, tip)
  await refreshRepositoryState(ctx.db, ctx.config, loaded.project, {
    recorded: {
      emptyRepo: loaded.project.empty_repo === 1,
      defaultBranch: loaded.project.default_branch ?? '',
      readmePath: loaded.project.readme_path,
    },
  })
}

async function removeBranch(ctx: Context, loaded: LoadedProject, directory: string, name: string, tip: string): Promise<void> {
  await assertMayChangeRef(ctx, loaded, `refs/heads/${name}`, 'delete')
  try {
    await git(['update-ref', '-d', `refs/heads/${name}`, tip], { gitDir: directory })
  } catch (error) {
    if (error instanceof GitError) throw new Rejected('Failed to remove branch')
    throw error
  }
  await recordBranchEvent(ctx, loaded, directory, name, tip, null)
}

/**
 * DELETE /projects/:id/repository/merged_branches (GL Branches::DeleteMergedService): every branch the default branch
 * contains, except protected ones and those of open merge requests. Done before the 202 answer.
 */
export async function deleteMergedBranches(ctx: Context, loaded: LoadedProject): Promise<void> {
  const directory = codeDirectory(ctx, loaded)
  assertMayPush(loaded)
  const tips = await readBranchTips(directory)
  const merged = await readMergedBranchNames(directory, tips.get(loaded.project.default_branch ?? ''))
  if (merged.size === 0) return
  const [subject, openBranches] = await Promise.all([
    loadRefSubject(ctx, loaded),
    findOpenMergeRequestBranchNames(ctx.db, loaded.project.id),
  ])
  for (const name of merged) {
    if (openBranches.has(name) || isBranchProtected(subject, name)) continue
    await removeBranch(ctx, loaded, directory, name, tips.get(name) as string).catch((error: unknown) => {
      // GL runs DeleteService for each and goes on whatever one answers.
      if (!(error instanceof Rejected)) throw error
    })
  }
}

/**
 * PUT /projects/:id/repository/branches/:branch/protect (GL's older API, still what python-gitlab's `branch.protect()`
 * calls): Maintainers protect the branch by its exact name.
 */
export async function protectBranch(
  ctx: Context,
  loaded: LoadedProject,
  name: string,
  developersCan: { push?: boolean; merge?: boolean },
): Promise<BranchView> {
  if (!canAdminProject(loaded.access)) throw new Forbidden()
  await showBranch(ctx, loaded, name)
  await protectBranchByLegacyApi(ctx, loaded, name, developersCan)
  return showBranch(ctx, loaded, name)
}

/** PUT /projects/:id/repository/branches/:branch/unprotect: the rule of exactly this name goes; wildcards stay. */
export async function unprotectBranch(ctx: Context, loaded: LoadedProject, name: string): Promise<BranchView> {
  if (!canAdminProject(loaded.access)) throw new Forbidden()
  await showBranch(ctx, loaded, name)
  await unprotectBranchByLegacyApi(ctx, loaded, name)
  return showBranch(ctx, loaded, name)
}
