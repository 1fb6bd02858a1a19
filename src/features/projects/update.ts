import { AccessLevel, meets, visibilityLevel, type Access } from '../../core/access.js'
import { isAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Invalid, NotFound, PreconditionFailed, Rejected } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow, ProjectUpdate } from '../../db/schema.js'
import {
  authorizeProject,
  canChangeRepositoryStorage,
  canReadNamespaceViaMembership,
  canTransferProjectsInto,
  findNamespaceById,
  findProjectById,
  groupAccess,
  type LoadedProject,
} from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { requestProjectStorageMove } from '../storage-moves/index.js'
import { addOwner } from '../members/index.js'
import { scheduleProjectDeletion } from './deletion.js'
import { findNamespaceByFullPath, isFullPathTaken, recordRedirect, releaseRedirectsFrom } from '../namespaces/index.js'
import { git, projectRepositoryDirectory, readBranchHead, storageNames } from '../repositories/index.js'
import type { ProjectInput } from './attributes.js'
import { defaultBranchOf, type ProjectView } from './present.js'
import { hasProjectNamedLike, updateProjectRow } from './store.js'
import { projectValidationErrors } from './validation.js'
import { candidateOf, hasErrors, saveErrors, visibilityCappedBy } from './create.js'
import { reload, viewOfLoaded } from './views.js'

// Changing, transferring, archiving and deleting (GL Projects::UpdateService, TransferService, DestroyService)

/** The project's new full path and name follow its namespace's; the old path redirects here (spec rule 6). */
async function movePaths(db: Db, project: ProjectRow, namespace: NamespaceRow, changes: ProjectUpdate, at: string) {
  const path = changes.path ?? project.path
  const name = changes.name ?? project.name
  changes.full_path = `${namespace.full_path}/${path}`
  changes.full_name = `${namespace.full_name} / ${name}`
  if (changes.full_path !== project.full_path) {
    await releaseRedirectsFrom(db, [changes.full_path])
    if (changes.full_path.toLowerCase() !== project.full_path.toLowerCase()) {
      await releaseRedirectsFrom(db, [project.full_path])
      await recordRedirect(db, project.full_path, { projectId: project.id }, at)
    }
  }
}

export async function updateProject(ctx: Context, loaded: LoadedProject, input: ProjectInput): Promise<ProjectView> {
  const { project, namespace, access } = loaded
  authorizeProject(access, 'admin_project')
  if (input.visibility !== undefined) authorizeProject(access, 'change_visibility_level')
  if (input.ciDeletePipelinesInSeconds !== undefined) authorizeProject(access, 'remove_project')
  const changes: ProjectUpdate = { ...input.settings }
  // Roles that may not change these see them dropped, not refused (GL UpdateService `remove_unallowed_params`).
  if (input.emailsEnabled !== undefined && meets(access, { level: AccessLevel.OWNER })) changes.emails_enabled = input.emailsEnabled ? 1 : 0
  if (input.maxArtifactsSize !== undefined && isAdmin(ctx.caller)) changes.max_artifacts_size = input.maxArtifactsSize
  if (input.ciDeletePipelinesInSeconds !== undefined) changes.ci_delete_pipelines_in_seconds = input.ciDeletePipelinesInSeconds
  if (input.repositoryStorage !== undefined && canChangeRepositoryStorage(ctx.caller)) changes.repository_storage = input.repositoryStorage
  if (input.name !== undefined) changes.name = input.name
  if (input.path !== undefined) changes.path = input.path
  if (input.description !== undefined) changes.description = input.description
  if (input.visibility !== undefined) changes.visibility_level = visibilityLevel(input.visibility)
  if (input.topics !== undefined) changes.topics = JSON.stringify(input.topics)
  if (
    changes.ci_pipeline_variables_minimum_override_role === 'owner' &&
    project.ci_pipeline_variables_minimum_override_role !== 'owner' &&
    !meets(access, { level: AccessLevel.OWNER })
  ) {
    throw new Rejected('Changing the ci_pipeline_variables_minimum_override_role to the owner role is not allowed')
  }
  // Only an existing branch can become the default (GL Project#change_head).
  const repository = projectRepositoryDirectory(ctx.config, project)
  if (input.defaultBranch !== undefined && input.defaultBranch !== defaultBranchOf(project)) {
    if ((await readBranchHead(repository, input.defaultBranch)) === null) {
      throw new Invalid({ base: [`Could not change HEAD: branch '${input.defaultBranch}' does not exist`] })
    }
    changes.default_branch = input.defaultBranch
  }
  // Only what differs from the stored value counts as changed (ActiveRecord dirty tracking).
  for (const key of Object.keys(changes) as (keyof ProjectUpdate)[]) {
    if (changes[key] === project[key as keyof ProjectRow]) delete changes[key]
  }
  const changed = new Set(Object.keys(changes))
  const merged = { ...project, ...changes } as ProjectRow
  const errors = projectValidationErrors(candidateOf(merged), changed)
  const source =
    project.forked_from_project_id !== null ? ((await findProjectById(ctx.db, project.forked_from_project_id))[0] ?? null) : null
  await saveErrors(ctx.db, errors, merged, namespace, changed, project.id, source, storageNames(ctx.config))
  if (hasErrors(errors)) throw new Invalid(errors)
  // A repository changes storage through a scheduled storage move (GL UpdateService `changing_repository_storage?`);
  // only a project without one has the column changed here.
  if (
    changes.repository_storage !== undefined &&
    (await requestProjectStorageMove(ctx, project, changes.repository_storage)) !== 'no repository'
  ) {
    delete changes.repository_storage
    changed.delete('repository_storage')
  }
  if (changed.size === 0) {
    // A save that changes nothing still succeeds, and GitLab tells of it (GL UpdateService#after_update).
    await ctx.db.transaction().execute((trx) => noticeProjectChange(ctx, trx, project, 'update'))
    return viewOfLoaded(ctx, loaded)
  }
  // The repository's HEAD names the default branch, as clones and the project's entity read it.
  if (changes.default_branch) await git(['symbolic-ref', 'HEAD', `refs/heads/${changes.default_branch}`], { gitDir: repository })
  const at = ctx.now().toISOString()
  const updated = await ctx.db.transaction().execute(async (trx) => {
    if (changed.has('path') || changed.has('name')) await movePaths(trx, project, namespace, changes, at)
    const row = await updateProjectRow(trx, project.id, { ...changes, updated_at: at })
    // A new path is told as a rename (GL Projects::AfterRenameService), anything else as an update.
    await noticeProjectChange(ctx, trx, project, changed.has('path') ? 'rename' : 'update')
    return row
  })
  return viewOfLoaded(ctx, { ...loaded, project: updated })
}

/** Tells the outside of a change to the project, with its path before the change for a rename or a transfer. */
function noticeProjectChange(ctx: Context, trx: Db, before: ProjectRow, action: 'rename' | 'transfer' | 'update') {
  return noticeChange(ctx, trx, {
    kind: 'project',
    action,
    projectId: before.id,
    actorId: ctx.caller.user?.id ?? before.creator_id ?? 0,
    ...(action === 'update' ? {} : { oldPathWithNamespace: before.full_path }),
    at: ctx.now(),
  })
}

/** GL TransferService's refusals, as the API words them: 400 "Failed to transfer project {:new_namespace=>[…]}". */
export class TransferRefused extends Rejected {
  /** The refusal alone, as a page says it (GL `errors[:new_namespace].first`). */
  constructor(readonly reason: string) {
    super(`Failed to transfer project {:new_namespace=>[${JSON.stringify(reason)}]}`)
  }
}

function transferFailed(message: string): Rejected {
  return new TransferRefused(message)
}

/** The target of a transfer: by id or full path, and only one the caller belongs to (GL `find_namespace!`). */
async function findTransferTarget(ctx: Context, idOrPath: string): Promise<{ namespace: NamespaceRow; access: Access | null }> {
  let namespace: NamespaceRow | undefined
  if (/^-?\d+$/.test(idOrPath)) {
    const id = Number(idOrPath)
    namespace = Number.isSafeInteger(id) ? (await findNamespaceById(ctx.db, id))[0] : undefined
  } else {
    namespace = await findNamespaceByFullPath(ctx.db, idOrPath)
  }
  if (!namespace) throw new NotFound('Namespace')
  const access = namespace.kind === 'group' ? await groupAccess(ctx, namespace) : null
  if (!canReadNamespaceViaMembership(ctx.caller, access, namespace)) throw new NotFound('Namespace')
  return { namespace, access }
}

/** PUT /projects/:id/transfer (GL Projects::TransferService). */
export async function transferProject(ctx: Context, loaded: LoadedProject, target: string): Promise<ProjectView> {
  const { project } = loaded
  authorizeProject(loaded.access, 'change_namespace')
  const { namespace, access } = await findTransferTarget(ctx, target)
  if (namespace.id === project.namespace_id) throw transferFailed('Project is already in this namespace.')
  if (!canTransferProjectsInto(ctx.caller, access, namespace)) {
    throw transferFailed("You don't have permission to transfer projects into that namespace.")
  }
  const fullPath = `${namespace.full_path}/${project.path}`
  if (
    (await hasProjectNamedLike(ctx.db, namespace.id, project.path, project.name)) ||
    (await isFullPathTaken(ctx.db, fullPath, { projectId: project.id }))
  ) {
    throw transferFailed('Project with same name or path in target namespace already exists')
  }
  const at = ctx.now().toISOString()
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const changes: ProjectUpdate = {
      namespace_id: namespace.id,
      visibility_level: visibilityCappedBy(namespace, project.visibility_level),
      updated_at: at,
    }
    await movePaths(trx, project, namespace, changes, at)
    const row = await updateProjectRow(trx, project.id, changes)
    // A project moved into a personal namespace is owned by its owner (GL `ensure_personal_project_owner_membership`).
    if (namespace.kind === 'user' && namespace.owner_id !== null) {
      await addOwner(ctx, trx, { kind: 'project', id: project.id }, namespace.owner_id, ctx.caller.user?.id ?? null, at)
    }
    await noticeProjectChange(ctx, trx, project, 'transfer')
    return row
  })
  return reload(ctx, updated)
}

/**
 * DELETE /projects/:id: marks the project for deletion and schedules the job that removes it (GL
 * `destroy_conditionally!` then ProjectDestroyWorker). `unmodifiedSince` is the client's If-Unmodified-Since.
 */
export async function deleteProject(ctx: Context, loaded: LoadedProject, unmodifiedSince: Date | null): Promise<void> {
  authorizeProject(loaded.access, 'remove_project')
  if (unmodifiedSince && Date.parse(loaded.project.updated_at) > unmodifiedSince.getTime()) throw new PreconditionFailed()
  await ctx.db.transaction().execute((trx) => scheduleProjectDeletion(trx, loaded.project.id, ctx.now(), ctx.caller.user?.id))
}

/** POST /projects/:id/archive and /unarchive: Owner (GL `archive_project`); archiving twice changes nothing. */
export async function setArchived(ctx: Context, loaded: LoadedProject, archived: boolean): Promise<ProjectView> {
  authorizeProject(loaded.access, 'archive_project')
  const value = archived ? 1 : 0
  if (loaded.project.archived === value) return viewOfLoaded(ctx, loaded)
  const updated = await ctx.db.transaction().execute(async (trx) => {
    const row = await updateProjectRow(trx, loaded.project.id, { archived: value, updated_at: ctx.now().toISOString() })
    // GL Projects::ArchiveService and UnarchiveService tell it as an update.
    await noticeProjectChange(ctx, trx, loaded.project, 'update')
    return row
  })
  return viewOfLoaded(ctx, { ...loaded, project: updated })
}
