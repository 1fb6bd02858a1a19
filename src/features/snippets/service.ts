import { Visibility, visibilityLevel, visibilityName, type VisibilityName } from '../../core/access.js'
import { isAdmin, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Forbidden, NotFound, RecordNotFound, ServiceFailure } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { SnippetRow } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/index.js'
import {
  canAdminSnippet,
  canCreatePersonalSnippet,
  canCreateProjectSnippet,
  canReadProjectSnippets,
  canReadSnippet,
  canUpdateSnippet,
  explorableSnippetsCondition,
  findProjectsByIds,
  type LoadedProject,
  visiblePersonalSnippets,
  visibleProjectSnippets,
  visibleSnippetsInProjectCondition,
  withAccess,
} from '../access/index.js'
import {
  commitFiles,
  createRepository,
  pickRepositoryStorage,
  removeRepository,
  repositoryExists,
  type TreeChange,
} from '../repositories/index.js'
import { checkSpam, type SpamRequest } from '../spam/index.js'
import { findUsersByIds } from '../users/index.js'
import { RemoveSnippetRepository } from './jobs.js'
import type { SnippetPresentOptions, SnippetView } from './present.js'
import {
  headBranch,
  listBranchFiles,
  listFiles,
  readFile,
  resolveCommit,
  snippetRepositoryDirectory,
  SNIPPET_DEFAULT_BRANCH,
} from './repository.js'
import type { SnippetFileAction } from './schemas.js'
import { deleteSnippetRow, findSnippetById, findSnippetsByIds, insertSnippet, updateSnippetRow } from './store.js'

/** A snippet and, for a project snippet, its project with the caller's access there. */
export interface LoadedSnippet {
  snippet: SnippetRow
  project: LoadedProject | null
}

/** Presenter options for the caller of `ctx`. */
export function snippetPresentOptions(ctx: Context): SnippetPresentOptions {
  return { viewer: ctx.caller, externalUrl: ctx.config.externalUrl, now: ctx.now() }
}

// A project marked for deletion is gone for every caller, and so are its snippets.
async function loadProjects(ctx: Context, ids: readonly number[]): Promise<Map<number, LoadedProject>> {
  const rows = (await findProjectsByIds(ctx.db, ids)).filter((project) => !project.pending_delete)
  const loaded = await Promise.all(rows.map((project) => withAccess(ctx, project)))
  return new Map(loaded.map((entry) => [entry.project.id, entry]))
}

async function loadSnippet(ctx: Context, snippet: SnippetRow | undefined): Promise<LoadedSnippet> {
  if (!snippet) throw new NotFound('Snippet')
  let project: LoadedProject | null = null
  if (snippet.project_id !== null) {
    project = (await loadProjects(ctx, [snippet.project_id])).get(snippet.project_id) ?? null
    if (project === null) throw new NotFound('Snippet')
  }
  if (!canReadSnippet(ctx.caller, snippet, project)) throw new NotFound('Snippet')
  return { snippet, project }
}

/** A personal or project snippet the caller may read (GL SnippetsFinder): 404 "Snippet Not Found" otherwise. */
export async function findSnippet(ctx: Context, id: number | string): Promise<LoadedSnippet> {
  const text = String(id)
  const number = /^\d+$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(number)) throw new NotFound('Snippet')
  return loadSnippet(ctx, await findSnippetById(ctx.db, number))
}

/** One of the caller's own snippets (GL `SnippetsFinder.new(current_user, author: current_user)`), as PUT and DELETE /snippets/:id find it. */
export async function findAuthoredSnippet(ctx: Context, id: number): Promise<LoadedSnippet> {
  const snippet = await findSnippetById(ctx.db, id)
  if (!snippet || snippet.author_id !== ctx.caller.user?.id) throw new NotFound('Snippet')
  return loadSnippet(ctx, snippet)
}

/**
 * GET /snippets/:id/user_agent_detail (GL `Snippet.find_by_id!`, then the detail): admins only; svc records no user
 * agent details, so an existing snippet answers 404 UserAgentDetail.
 */
export async function findSnippetUserAgentDetail(ctx: Context, id: number, projectId: number | null = null): Promise<never> {
  const snippet = await findSnippetById(ctx.db, id)
  if (!snippet || (projectId !== null && snippet.project_id !== projectId)) throw new RecordNotFound()
  throw new NotFound('UserAgentDetail')
}

/** GL project_snippets.rb `check_snippets_enabled`: 403 when the project's snippets are not available to the caller. */
export function authorizeProjectSnippets(project: LoadedProject): void {
  if (!canReadProjectSnippets(project)) throw new Forbidden()
}

/** One of a project's snippets the caller may read. */
export async function findProjectSnippet(ctx: Context, project: LoadedProject, snippetId: number): Promise<LoadedSnippet> {
  const snippet = await findSnippetById(ctx.db, snippetId)
  if (!snippet || snippet.project_id !== project.project.id) throw new NotFound('Snippet')
  if (!canReadSnippet(ctx.caller, snippet, project)) throw new NotFound('Snippet')
  return { snippet, project }
}

/** What the entities show of snippets besides their rows: authors, project paths and the files in their repositories. */
export async function buildSnippetViews(ctx: Context, snippets: readonly SnippetRow[]): Promise<SnippetView[]> {
  const authors = new Map((await findUsersByIds(ctx.db, [...new Set(snippets.map((s) => s.author_id))])).map((user) => [user.id, user]))
  const projectIds = [...new Set(snippets.flatMap((s) => (s.project_id === null ? [] : [s.project_id])))]
  const projects = new Map((await findProjectsByIds(ctx.db, projectIds)).map((project) => [project.id, project]))
  return mapWithLimit(snippets, GIT_READS_AT_ONCE, async (snippet) => {
    const directory = snippetRepositoryDirectory(ctx.config, snippet)
    const exists = await repositoryExists(directory)
    const rootRef = exists ? await headBranch(directory) : SNIPPET_DEFAULT_BRANCH
    return {
      snippet,
      author: authors.get(snippet.author_id) as User,
      projectFullPath: snippet.project_id === null ? null : (projects.get(snippet.project_id)?.full_path ?? null),
      repositoryExists: exists,
      rootRef,
      files: exists ? await listBranchFiles(directory, rootRef) : [],
    }
  })
}

// A page of 100 snippets reads 100 repositories: a few git processes at a time, not a hundred.
const GIT_READS_AT_ONCE = 8

async function mapWithLimit<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await map(items[index])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

export async function buildSnippetView(ctx: Context, snippet: SnippetRow): Promise<SnippetView> {
  return (await buildSnippetViews(ctx, [snippet]))[0]
}

/** Snippets by id, whoever may read them (for resources that embed them, such as storage moves). */
export { findSnippetsByIds }

// ---------------------------------------------------------------- lists

export interface SnippetListFilters {
  createdAfter?: string
  createdBefore?: string
  repositoryStorage?: string
  /** Only snippets of this visibility (GL SnippetsFinder `scope`: are_private, are_internal, are_public). */
  visibility?: VisibilityName
}

/** The API's lists, and `explore` for the explore page (GL SnippetsFinder `explore: true`). */
export type SnippetListScope = 'authored' | 'public' | 'all' | 'explore'

/**
 * GL lib/api/snippets.rb lists: the caller's own snippets (personal and in projects they may read), public personal
 * snippets, or every snippet they may read; newest first.
 */
export async function listSnippets(
  ctx: Context,
  scope: SnippetListScope,
  filters: SnippetListFilters,
  window: { page: number; perPage: number },
): Promise<OffsetPage<SnippetRow>> {
  let query = ctx.db.selectFrom('snippets').selectAll('snippets')
  if (scope === 'authored') {
    const authorId = ctx.caller.user?.id ?? 0
    query = query
      .where('snippets.author_id', '=', authorId)
      .where((eb) => eb.or([eb('snippets.project_id', 'is', null), visibleProjectSnippets(ctx, eb)]))
  } else if (scope === 'public') {
    query = query.where('snippets.project_id', 'is', null).where('snippets.visibility_level', '=', Visibility.PUBLIC)
  } else if (scope === 'explore') {
    query = query.where((eb) => explorableSnippetsCondition(ctx, eb))
  } else {
    query = query.where((eb) => eb.or([visiblePersonalSnippets(ctx, eb), visibleProjectSnippets(ctx, eb)]))
    if (filters.repositoryStorage !== undefined && isAdmin(ctx.caller)) {
      query = query.where('snippets.repository_storage', '=', filters.repositoryStorage)
    }
  }
  if (filters.createdAfter !== undefined) query = query.where('snippets.created_at', '>=', filters.createdAfter)
  if (filters.createdBefore !== undefined) query = query.where('snippets.created_at', '<=', filters.createdBefore)
  if (filters.visibility !== undefined) query = query.where('snippets.visibility_level', '=', visibilityLevel(filters.visibility))
  // Public snippets are `fresh` (newest created first); SnippetsFinder sorts by `id_desc`.
  if (scope === 'public') query = query.orderBy('snippets.created_at', 'desc')
  query = query.orderBy('snippets.id', 'desc')
  return fetchOffsetPage(ctx.db, query, window.page, window.perPage)
}

/** A project's snippets the caller may read, newest first (GL SnippetsFinder with a project). */
export async function listProjectSnippets(
  ctx: Context,
  project: LoadedProject,
  window: { page: number; perPage: number },
  filters: Pick<SnippetListFilters, 'visibility'> = {},
): Promise<OffsetPage<SnippetRow>> {
  authorizeProjectSnippets(project)
  let query = ctx.db.selectFrom('snippets').selectAll('snippets').where('snippets.project_id', '=', project.project.id)
  if (filters.visibility !== undefined) query = query.where('snippets.visibility_level', '=', visibilityLevel(filters.visibility))
  query = query.where((eb) => visibleSnippetsInProjectCondition(ctx, eb, project.access)).orderBy('snippets.id', 'desc')
  return fetchOffsetPage(ctx.db, query, window.page, window.perPage)
}

// ---------------------------------------------------------------- content

/** GL SnippetsHelpers#content_for: the first file of the repository, or the row's content when it has none. */
export async function readSnippetContent(ctx: Context, loaded: LoadedSnippet): Promise<{ content: string; fileName: string | null }> {
  const { snippet } = loaded
  const directory = snippetRepositoryDirectory(ctx.config, snippet)
  if (await repositoryExists(directory)) {
    const branch = await headBranch(directory)
    const commit = await resolveCommit(directory, branch)
    const first = commit === null ? undefined : (await listFiles(directory, commit))[0]
    if (commit !== null && first !== undefined) {
      const content = await readFile(directory, commit, first)
      if (content !== null) return { content, fileName: first }
    }
  }
  return { content: snippet.content ?? '', fileName: null }
}

/** GL SnippetsHelpers#file_content_for: one file at a ref; 404 Reference or File when either is missing. */
export async function readSnippetFile(ctx: Context, loaded: LoadedSnippet, ref: string, filePath: string): Promise<string> {
  const directory = snippetRepositoryDirectory(ctx.config, loaded.snippet)
  if (!(await repositoryExists(directory))) throw new NotFound('Snippet')
  const commit = await resolveCommit(directory, ref)
  if (commit === null) throw new NotFound('Reference')
  const content = await readFile(directory, commit, filePath)
  if (content === null) throw new NotFound('File')
  return content
}

// ---------------------------------------------------------------- writes

export interface CreateSnippetInput {
  title: string
  description?: string
  visibility: VisibilityName
  /** The files; the deprecated `file_name` and `content` arrive here as one file. */
  files: { filePath: string; content: string }[]
}

const CREATE_FAILED = 'Repository Error creating the snippet'
const UPDATE_FAILED = 'Repository Error updating the snippet'
const INVALID_ACTIONS = 'Snippet actions have invalid data'

function authorOf(user: User) {
  return { name: user.name, email: user.commit_email || user.email }
}

/**
 * GL Snippets::CreateService: the row and its repository, with the files in one commit on `main`, in one transaction
 * so that a failure leaves neither.
 */
export async function createSnippet(
  ctx: Context,
  project: LoadedProject | null,
  input: CreateSnippetInput,
  spam: SpamRequest | null = null,
): Promise<SnippetRow> {
  const user = ctx.caller.user
  if (project === null ? !canCreatePersonalSnippet(ctx.caller) : !canCreateProjectSnippet(project)) throw new Forbidden()
  if (!user) throw new Forbidden()
  const paths = input.files.map((file) => file.filePath)
  if (paths.some((path, index) => paths.indexOf(path) !== index)) throw new ServiceFailure(400, CREATE_FAILED)
  // GL Snippet#check_for_spam?: only public snippets are checked, by their title and first file.
  if (spam && input.visibility === 'public') {
    await checkSpam(ctx, spam, { type: 'Snippet', title: input.title, description: input.files[0].content })
  }
  const at = ctx.now().toISOString()
  const first = input.files[0]
  let made: { storage: string; id: number } | null = null
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const snippet = await insertSnippet(trx, {
        title: input.title,
        description: input.description ?? null,
        file_name: first.filePath,
        content: first.content,
        visibility_level: visibilityLevel(input.visibility),
        author_id: user.id,
        project_id: project?.project.id ?? null,
        repository_storage: pickRepositoryStorage(ctx.config, ctx.settings),
        created_at: at,
        updated_at: at,
      })
      made = { storage: snippet.repository_storage, id: snippet.id }
      const directory = await createRepository(ctx.config, {
        storage: snippet.repository_storage,
        projectId: snippet.id,
        kind: 'snippet',
        defaultBranch: SNIPPET_DEFAULT_BRANCH,
        objectFormat: 'sha1',
      })
      await commitFiles({
        directory,
        branch: SNIPPET_DEFAULT_BRANCH,
        changes: input.files.map((file) => ({ path: file.filePath, content: file.content })),
        message: 'Initial commit',
        author: authorOf(user),
        at: new Date(at),
      })
      return snippet
    })
  } catch (error) {
    if (made !== null) {
      const { storage, id } = made
      await removeRepository(ctx.config, storage, id, 'snippet').catch(() => {})
    }
    ctx.log.error({ err: error }, 'could not create a snippet')
    throw new ServiceFailure(400, CREATE_FAILED)
  }
}

export interface UpdateSnippetInput {
  title?: string
  description?: string
  visibility?: VisibilityName
  files?: SnippetFileAction[]
  /** The deprecated single-file form. */
  content?: string
  fileName?: string
}

/** GL SnippetInputAction validations: a known action with the paths and content it needs. */
function isValidAction(action: SnippetFileAction): boolean {
  const filePath = action.file_path ?? ''
  switch (action.action) {
    case 'create':
      return (action.content ?? '') !== ''
    case 'update':
      return (
        filePath !== '' &&
        (action.content ?? '') !== '' &&
        (action.previous_path === undefined || action.previous_path === '' || action.previous_path === filePath)
      )
    case 'delete':
      return filePath !== ''
    case 'move':
      return filePath !== '' && (action.previous_path ?? '') !== ''
  }
}

/** The tree changes of the actions over the current files, or null when the repository would refuse one. */
async function changesOf(directory: string, commit: string | null, current: string[], actions: SnippetFileAction[]) {
  const files = new Set(current)
  const changes: TreeChange[] = []
  let generated = 0
  for (const action of actions) {
    const filePath = action.file_path ?? ''
    switch (action.action) {
      case 'create': {
        let target = filePath
        // GL SnippetInputAction: a new file without a name gets `snippetfile<n>.txt`.
        while (target === '') {
          generated += 1
          const candidate = `snippetfile${generated}.txt`
          if (!files.has(candidate)) target = candidate
        }
        if (files.has(target)) return null
        files.add(target)
        changes.push({ path: target, content: action.content ?? '' })
        break
      }
      case 'update':
        if (!files.has(filePath)) return null
        changes.push({ path: filePath, content: action.content ?? '' })
        break
      case 'delete':
        if (!files.has(filePath)) return null
        files.delete(filePath)
        changes.push({ path: filePath, remove: true })
        break
      case 'move': {
        const previous = action.previous_path ?? ''
        if (!files.has(previous) || (files.has(filePath) && filePath !== previous)) return null
        let content: string | null = action.content ?? ''
        if (content === '') {
          // The file's latest content: written earlier in this request, else in the repository.
          const written = changes.findLast((change) => change.path === previous)
          if (written) content = 'remove' in written ? null : written.content
          else content = commit === null ? null : await readFile(directory, commit, previous)
          if (content === null) return null
        }
        files.delete(previous)
        files.add(filePath)
        changes.push({ path: previous, remove: true }, { path: filePath, content })
        break
      }
    }
  }
  return { changes, files }
}

/**
 * GL Snippets::UpdateService: the row's fields, and the files in one commit by the caller; the deprecated
 * `content`/`file_name` change the only file. The row keeps the first file of the repository, as GitLab's does.
 */
export async function updateSnippet(
  ctx: Context,
  loaded: LoadedSnippet,
  input: UpdateSnippetInput,
  spam: SpamRequest | null = null,
): Promise<SnippetRow> {
  const { snippet, project } = loaded
  const user = ctx.caller.user
  if (!user || !canUpdateSnippet(ctx.caller, snippet, project)) throw new Forbidden()
  const directory = snippetRepositoryDirectory(ctx.config, snippet)
  const exists = await repositoryExists(directory)
  const commit = exists ? await resolveCommit(directory, SNIPPET_DEFAULT_BRANCH) : null
  const current = commit === null ? [] : await listFiles(directory, commit)
  if ((input.content !== undefined || input.fileName !== undefined) && current.length > 1) {
    throw new ServiceFailure(400, 'To update Snippets with multiple files, you must use the `files` parameter')
  }
  let actions: SnippetFileAction[] = []
  if (input.files !== undefined) {
    if (input.files.length === 0 || !input.files.every(isValidAction)) throw new ServiceFailure(422, INVALID_ACTIONS)
    actions = input.files
  } else if (input.content !== undefined || input.fileName !== undefined) {
    const onRepository = current[0]
    if (onRepository === undefined) {
      actions = [
        { action: 'create', file_path: input.fileName ?? snippet.file_name ?? '', content: input.content ?? snippet.content ?? '' },
      ]
    } else if (input.fileName !== undefined && input.fileName !== onRepository) {
      actions = [{ action: 'move', previous_path: onRepository, file_path: input.fileName, content: input.content }]
    } else if (input.content !== undefined) {
      actions = [{ action: 'update', file_path: onRepository, content: input.content }]
    }
  }
  let finalFiles = current
  let changes: TreeChange[] = []
  if (actions.length > 0) {
    if (!exists || snippet.repository_read_only) throw new ServiceFailure(400, UPDATE_FAILED)
    const planned = await changesOf(directory, commit, current, actions)
    if (planned === null) throw new ServiceFailure(400, UPDATE_FAILED)
    changes = planned.changes
    finalFiles = [...planned.files].sort()
  }
  // GL Snippet#check_for_spam?: a snippet made public, or a public one whose title or content changes.
  const publicAfter = (input.visibility ?? visibilityName(snippet.visibility_level)) === 'public'
  const madePublic = publicAfter && snippet.visibility_level !== Visibility.PUBLIC
  const textChanged = (input.title !== undefined && input.title !== snippet.title) || changes.length > 0
  if (spam && publicAfter && (madePublic || textChanged)) {
    const firstWritten = changes.find((change): change is { path: string; content: string } => !('remove' in change))
    await checkSpam(ctx, spam, {
      type: 'Snippet',
      title: input.title ?? snippet.title,
      description: firstWritten?.content ?? snippet.content,
    })
  }
  const at = ctx.now().toISOString()
  const changesRow: Parameters<typeof updateSnippetRow>[2] = {}
  if (input.title !== undefined && input.title !== snippet.title) changesRow.title = input.title
  if (input.description !== undefined && input.description !== snippet.description) changesRow.description = input.description
  const level = input.visibility === undefined ? snippet.visibility_level : visibilityLevel(input.visibility)
  if (level !== snippet.visibility_level) changesRow.visibility_level = level
  // As ActiveRecord saves: updated_at moves only when something changed.
  if (Object.keys(changesRow).length === 0 && changes.length === 0) return snippet
  changesRow.updated_at = at
  return ctx.db.transaction().execute(async (trx) => {
    if (changes.length > 0) {
      try {
        const sha = await commitFiles({
          directory,
          branch: SNIPPET_DEFAULT_BRANCH,
          changes,
          message: 'Update',
          author: authorOf(user),
          at: new Date(at),
        })
        const first = (await listFiles(directory, sha))[0] ?? finalFiles[0]
        changesRow.file_name = first ?? null
        changesRow.content = first === undefined ? null : await readFile(directory, sha, first)
      } catch (error) {
        ctx.log.error({ err: error, snippetId: snippet.id }, 'could not commit to a snippet')
        throw new ServiceFailure(400, UPDATE_FAILED)
      }
    }
    return updateSnippetRow(trx, snippet.id, changesRow)
  })
}

/** GL Snippets::DestroyService: the row goes, and a job removes the repository once that has committed. */
export async function deleteSnippet(ctx: Context, loaded: LoadedSnippet): Promise<void> {
  const { snippet, project } = loaded
  if (!canAdminSnippet(ctx.caller, snippet, project)) throw new Forbidden()
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteSnippetRow(trx, snippet.id))) throw new NotFound('Snippet')
    await enqueueJob(
      trx,
      RemoveSnippetRepository,
      { snippetId: snippet.id, storage: snippet.repository_storage },
      { uniqueKey: `snippets.remove-repository:${snippet.id}` },
    )
  })
}

/** Removes a deleted snippet's repository; nothing to do when it is gone already or the snippet still exists. */
export async function removeDeletedSnippetRepository(ctx: Context, snippetId: number, storage: string): Promise<void> {
  if (await findSnippetById(ctx.db, snippetId)) return
  if (ctx.config.storages[storage] === undefined) return
  await removeRepository(ctx.config, storage, snippetId, 'snippet')
}
