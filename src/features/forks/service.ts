import { FeatureAccess, visibilityLevel, visibilityName, Visibility, type VisibilityName } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Conflict, Forbidden, Invalid, NotFound, PreconditionFailed, ProjectMoved, Rejected, Unauthorized } from '../../core/errors.js'
import type { NamespaceRow, ProjectRow, ProjectUpdate } from '../../db/schema.js'
import { enqueueJob, wakeJobWorkers, type JobContext } from '../../jobs/index.js'
import {
  canReadNamespaceViaMembership,
  findNamespaceById,
  findProject,
  findProjectsByIds,
  groupAccess,
  type LoadedProject,
} from '../access/index.js'
import { findNamespaceByFullPath, findPersonalNamespace } from '../namespaces/index.js'
import {
  canCreateProjectIn,
  createProject,
  listProjects,
  markForkedFrom,
  moveImportStatus,
  unmarkForked,
  viewOfLoaded,
  type ListProjectsInput,
  type ProjectListResult,
  type ProjectView,
  FEATURE_LEVEL_PARAMS,
} from '../projects/index.js'
import { git, projectRepositoryDirectory, recordRepositoryState, repositoryExists } from '../repositories/index.js'
import { ForkRepository } from './jobs.js'
import { canForkProject, canManageForkRelation } from './policy.js'
import { copyRepositoryForFork, SourceBranchMissing } from './repository.js'

/**
 * The feature access levels a fork copies from its source (GL ForkService#fork_new_project, ProjectFeature::FEATURES):
 * those the API writes, and the two it no longer takes.
 */
const FEATURE_LEVEL_COLUMNS = [
  ...FEATURE_LEVEL_PARAMS,
  'operations_access_level',
  'requirements_access_level',
] as const satisfies readonly (keyof ProjectRow & keyof ProjectUpdate)[]

export interface ForkInput {
  namespaceId?: number
  namespacePath?: string
  /** Deprecated: an id or a full path. */
  namespace?: string
  name?: string
  path?: string
  description?: string
  visibility?: VisibilityName
  mrDefaultTargetSelf?: boolean
  branch?: string
}

/** Rails' `present?` for strings: not blank. */
function isPresent(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== ''
}

/** ActiveModel `full_messages`: each error after its attribute's human name; base errors alone. */
function fullMessages(errors: Record<string, string[]>): string[] {
  const human = (attribute: string) => {
    const words = attribute.replace(/_id$/, '').replace(/_/g, ' ')
    return words.charAt(0).toUpperCase() + words.slice(1)
  }
  return Object.entries(errors).flatMap(([attribute, messages]) =>
    messages.map((message) => (attribute === 'base' ? message : `${human(attribute)} ${message}`)),
  )
}

/**
 * The namespace a fork goes to (GL `find_namespace!`, precedence namespace_id > namespace_path > namespace): one the
 * caller belongs to, else 404 "Namespace Not Found"; the caller's personal namespace when none is given.
 */
async function findTargetNamespace(ctx: Context, input: ForkInput): Promise<NamespaceRow> {
  const user = ctx.caller.user
  if (!user) throw new Unauthorized()
  let namespace: NamespaceRow | undefined
  if (input.namespaceId !== undefined) namespace = (await findNamespaceById(ctx.db, input.namespaceId))[0]
  else if (isPresent(input.namespacePath)) namespace = await findNamespaceByFullPath(ctx.db, input.namespacePath)
  else if (isPresent(input.namespace)) {
    const id = /^\d+$/.test(input.namespace) ? Number(input.namespace) : null
    namespace =
      id !== null
        ? Number.isSafeInteger(id)
          ? (await findNamespaceById(ctx.db, id))[0]
          : undefined
        : await findNamespaceByFullPath(ctx.db, input.namespace)
  } else {
    const personal = await findPersonalNamespace(ctx.db, user.id)
    if (!personal) throw new NotFound('Namespace')
    return personal
  }
  if (!namespace) throw new NotFound('Namespace')
  const access = namespace.kind === 'group' ? await groupAccess(ctx, namespace) : null
  if (!canReadNamespaceViaMembership(ctx.caller, access, namespace)) throw new NotFound('Namespace')
  return namespace
}

/** Whether the source repository has this branch (GL ForkService#valid_fork_branch?). */
async function hasBranch(ctx: Context, project: ProjectRow, branch: string): Promise<boolean> {
  const directory = projectRepositoryDirectory(ctx.config, project)
  if (!(await repositoryExists(directory))) return false
  const ref = `refs/heads/${branch}`
  const listed = await git(['for-each-ref', '--format=%(refname)', ref], { gitDir: directory })
  return listed.split('\n').includes(ref)
}

/**
 * GL Project#git_objects_poolable?: a source that is no fork, not private, with an open repository, shares its storage
 * with its forks (GitLab through an object pool, svc through hard links); other forks go where new projects go.
 */
async function forkStorageOf(ctx: Context, source: ProjectRow): Promise<string | undefined> {
  const poolable =
    source.forked_from_project_id === null &&
    source.visibility_level > Visibility.PRIVATE &&
    source.repository_access_level > FeatureAccess.PRIVATE &&
    (await repositoryExists(projectRepositoryDirectory(ctx.config, source)))
  return poolable ? source.repository_storage : undefined
}

/** POST /projects/:id/fork (GL API projects.rb and Projects::ForkService): the new project, its repository copied by a job. */
export async function forkProject(ctx: Context, loaded: LoadedProject, input: ForkInput): Promise<ProjectView> {
  const { project: source } = loaded
  // Spec §4.1: no fork permission (no access, forking disabled) is 404, not 403.
  if (!canForkProject(loaded.access, source)) throw new NotFound()
  const namespace = await findTargetNamespace(ctx, input)
  const branch = isPresent(input.branch) ? input.branch : null
  if (branch !== null && !(await hasBranch(ctx, source, branch))) throw new NotFound('Source Branch')
  // GL ForkService#valid_fork_target?: administrators anywhere, others where they may create projects.
  if (!isAdmin(ctx.caller) && !(await canCreateProjectIn(ctx, namespace))) throw new NotFound('Target Namespace')

  let level = Math.min(source.visibility_level, namespace.visibility_level)
  if (input.visibility !== undefined) level = Math.min(level, visibilityLevel(input.visibility))
  const settings: ProjectUpdate = {
    shared_runners_enabled: source.shared_runners_enabled,
    ci_config_path: source.ci_config_path,
    ci_default_git_depth: source.ci_default_git_depth,
    suggestion_commit_message: source.suggestion_commit_message,
    merge_commit_template: source.merge_commit_template,
    squash_commit_template: source.squash_commit_template,
  }
  for (const column of FEATURE_LEVEL_COLUMNS) settings[column] = source[column]
  if (input.mrDefaultTargetSelf !== undefined) settings.mr_default_target_self = input.mrDefaultTargetSelf ? 1 : 0
  const storage = await forkStorageOf(ctx, source)
  let view: ProjectView
  try {
    view = await createProject(
      ctx,
      {
        name: input.name ?? source.name,
        path: input.path ?? source.path,
        description: input.description ?? source.description,
        visibility: visibilityName(level),
        namespaceId: namespace.id,
        settings,
      },
      null,
      {
        sourceId: source.id,
        storage,
        defaultBranch: branch ?? source.default_branch ?? 'main',
        objectFormat: source.repository_object_format,
        schedule: async (trx, project) => {
          await enqueueJob(trx, ForkRepository, { projectId: project.id, branch }, { now: ctx.now() })
        },
      },
    )
  } catch (error) {
    // GL API `conflict!(result.message)`: the new project's errors as full messages.
    if (error instanceof Invalid) throw new Conflict(fullMessages(error.errors))
    throw error
  }
  wakeJobWorkers()
  return view
}

/**
 * GL ForkTargetsFinder: where the caller may fork to, their personal namespace first, then those of `groups` in which
 * they may create projects.
 */
export async function listForkTargets(ctx: Context, groups: readonly NamespaceRow[]): Promise<NamespaceRow[]> {
  const user = ctx.caller.user
  if (!user) return []
  const personal = await findPersonalNamespace(ctx.db, user.id)
  const candidates = personal ? [personal, ...groups] : [...groups]
  const allowed = await Promise.all(candidates.map((namespace) => canCreateProjectIn(ctx, namespace)))
  return candidates.filter((_, index) => allowed[index])
}

/** GET /projects/:id/forks (GL ForkProjectsFinder): the project list, over the project's direct forks. */
export function listForks(ctx: Context, loaded: LoadedProject, input: ListProjectsInput): Promise<ProjectListResult> {
  return listProjects(ctx, { ...input, scope: { kind: 'forks', projectId: loaded.project.id } })
}

/** A project by id or path for POST /projects/:id/fork/:forked_from_id: GL `find_project!` follows renames silently. */
async function findSourceProject(ctx: Context, idOrPath: string): Promise<LoadedProject> {
  try {
    return await findProject(ctx, idOrPath)
  } catch (error) {
    if (error instanceof ProjectMoved) return findProject(ctx, error.projectId)
    if (error instanceof NotFound) throw new NotFound('Source Project')
    throw error
  }
}

/** POST /projects/:id/fork/:forked_from_id (GL API projects.rb, ForkService#link_existing_project). */
export async function linkFork(ctx: Context, loaded: LoadedProject, forkedFromId: string): Promise<ProjectView> {
  if (!canManageForkRelation(loaded.access)) throw new Forbidden()
  const source = await findSourceProject(ctx, forkedFromId)
  if (!canForkProject(source.access, source.project)) throw new Forbidden()
  if (!isAdmin(ctx.caller) && !(await canCreateProjectIn(ctx, loaded.namespace))) throw new Unauthorized('Target Namespace')
  if (loaded.project.forked_from_project_id !== null) throw new Conflict('Project already forked')
  if (loaded.project.id === source.project.id) throw new Rejected('Target project cannot be equal to source project')
  const linked = await ctx.db.transaction().execute((trx) => markForkedFrom(trx, loaded.project.id, source.project.id))
  if (!linked) throw new Conflict('Project already forked')
  return viewOfLoaded(ctx, { ...loaded, project: linked })
}

/**
 * DELETE /projects/:id/fork (GL Projects::UnlinkForkService under `destroy_conditionally!`): false when the project is
 * no fork (304). `unmodifiedSince` is the client's If-Unmodified-Since.
 */
export async function unlinkFork(ctx: Context, loaded: LoadedProject, unmodifiedSince: Date | null): Promise<boolean> {
  if (!canManageForkRelation(loaded.access)) throw new Forbidden()
  if (unmodifiedSince && Date.parse(loaded.project.updated_at) > unmodifiedSince.getTime()) throw new PreconditionFailed()
  if (loaded.project.forked_from_project_id === null) return false
  const unlinked = await ctx.db.transaction().execute((trx) => unmarkForked(trx, loaded.project.id))
  return unlinked !== undefined
}

/**
 * The fork job (GL RepositoryForkWorker): import_status scheduled → started → finished, or failed with import_error
 * once the last attempt fails. Running it again changes nothing: a finished fork is left alone, a repository already
 * in place is kept, and a copy a crash interrupted is started over.
 */
export async function copyForkRepository(ctx: JobContext, projectId: number, branch: string | null): Promise<void> {
  const [fork] = await findProjectsByIds(ctx.db, [projectId])
  if (!fork || fork.pending_delete) return
  if (fork.import_status !== 'scheduled' && fork.import_status !== 'started') return
  const [source] = fork.forked_from_project_id === null ? [] : await findProjectsByIds(ctx.db, [fork.forked_from_project_id])
  if (!source) {
    await moveImportStatus(ctx.db, fork.id, ['scheduled', 'started'], 'failed', 'Source project cannot be found.')
    return
  }
  // Recorded while the copy reads the source's refs; nothing is written at the target before it is.
  const started = moveImportStatus(ctx.db, fork.id, ['scheduled'], 'started', null)
  // Awaited below; a failure before then must not go unhandled.
  started.catch(() => {})
  try {
    const { state } = await copyRepositoryForFork({
      source: projectRepositoryDirectory(ctx.config, source),
      target: projectRepositoryDirectory(ctx.config, fork),
      link: source.repository_storage === fork.repository_storage,
      branch,
      defaultBranch: fork.default_branch ?? source.default_branch ?? 'main',
      objectFormat: fork.repository_object_format,
      signal: ctx.signal,
      started,
    })
    await started
    // The repository is on disk (flushed) before the row says so: the state and "finished" in one commit.
    await ctx.db.transaction().execute(async (trx) => {
      if (await moveImportStatus(trx, fork.id, ['scheduled', 'started'], 'finished', null)) await recordRepositoryState(trx, fork.id, state)
    })
  } catch (error) {
    await started.catch(() => {})
    if (ctx.signal.aborted) throw error
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof SourceBranchMissing || ctx.job.attempt >= ForkRepository.maxAttempts) {
      ctx.log.error({ err: error, projectId }, 'fork failed')
      await moveImportStatus(ctx.db, fork.id, ['scheduled', 'started'], 'failed', message)
      return
    }
    throw error
  }
}
