import { FeatureAccess, visibilityLevel, visibilityName, Visibility } from '../../core/access.js'
import { isAdmin, type Caller, type User } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Forbidden, Invalid, RefusedWithErrors } from '../../core/errors.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, NewProjectRow, ProjectRow, ProjectUpdate } from '../../db/schema.js'
import { canChangeRepositoryStorage, canCreateProjectsInGroup, findNamespaceById, groupAccess } from '../access/index.js'
import { noticeChange } from '../change-notices/index.js'
import { recordEvent } from '../event-log/index.js'
import { addOwner } from '../members/index.js'
import { findPersonalNamespace, isFullPathTaken, releaseRedirectsFrom } from '../namespaces/index.js'
import { protectDefaultBranch } from '../protected-refs/index.js'
import {
  commitFirstFile,
  createRepository,
  pickRepositoryStorage,
  readmeContent,
  GitError,
  isValidRefName,
  removeRepository,
  storageNames,
} from '../repositories/index.js'
import type { CreateInput } from './attributes.js'
import { DEFAULT_BRANCH, webUrlOf, type ProjectView } from './present.js'
import { countPersonalProjects, insertProject, isNameTakenInNamespace } from './store.js'
import { addError, hasProjectPathFormat, parameterize, projectValidationErrors, type ValidationErrors } from './validation.js'
import { reload } from './views.js'

export function hasErrors(errors: ValidationErrors): boolean {
  return Object.keys(errors).length > 0
}

// Creating (GL Projects::CreateService)

/** The caller acting as another user, as POST /projects/user/:user_id creates for them. */
function actingAs(ctx: Context, user: User): Context {
  const caller: Caller = { user, credential: ctx.caller.credential, sudoFrom: ctx.caller.sudoFrom }
  return { ...ctx, caller }
}

/** GL `create_projects` on a namespace: its owner or an administrator for a personal one; the group's creation level otherwise. */
export async function canCreateProjectIn(ctx: Context, namespace: NamespaceRow): Promise<boolean> {
  if (!ctx.caller.user) return false
  if (namespace.kind === 'user') return isAdmin(ctx.caller) || namespace.owner_id === ctx.caller.user.id
  return canCreateProjectsInGroup(await groupAccess(ctx, namespace), namespace)
}

/** GL `check_personal_projects_limit`, worded as GitLab words it. */
async function projectLimitError(ctx: Context, creator: User): Promise<string | null> {
  const personal = await findPersonalNamespace(ctx.db, creator.id)
  const count = personal ? await countPersonalProjects(ctx.db, personal.id) : 0
  if (creator.projects_limit - count > 0) return null
  if (creator.projects_limit === 0) return 'Personal project creation is not allowed. Please contact your administrator with questions'
  return `Your project limit is ${creator.projects_limit} projects! Please contact your administrator to increase it`
}

export function visibilityCappedBy(namespace: NamespaceRow, level: number): number {
  return namespace.kind === 'group' ? Math.min(level, namespace.visibility_level) : level
}

/** Errors GitLab adds on save besides the attribute rules: taken names and paths, storages, the group's visibility. */
export async function saveErrors(
  db: Db,
  errors: ValidationErrors,
  row: { name: string; path: string; visibility_level: number; repository_storage?: string },
  namespace: NamespaceRow,
  changed: ReadonlySet<string>,
  exceptId: number | null,
  source: ProjectRow | null,
  storages: readonly string[],
) {
  if (changed.has('name') && !errors.name?.length && (await isNameTakenInNamespace(db, namespace.id, row.name, exceptId))) {
    addError(errors, 'name', 'has already been taken')
  }
  const fullPath = `${namespace.full_path}/${row.path}`
  if (
    changed.has('path') &&
    !errors.path?.length &&
    (await isFullPathTaken(db, fullPath, exceptId === null ? {} : { projectId: exceptId }))
  ) {
    addError(errors, 'path', 'has already been taken')
  }
  if (changed.has('visibility_level')) {
    const level = visibilityName(row.visibility_level)
    if (namespace.kind === 'group' && row.visibility_level > namespace.visibility_level) {
      addError(errors, 'visibility_level', `${level} is not allowed in a ${visibilityName(namespace.visibility_level)} group.`)
    }
    if (source && row.visibility_level > source.visibility_level) {
      addError(errors, 'visibility_level', `${level} is not allowed since the fork source project has lower visibility.`)
    }
  }
  if (changed.has('repository_storage') && row.repository_storage !== undefined && !storages.includes(row.repository_storage)) {
    addError(errors, 'repository_storage', 'is not included in the list')
  }
}

/** What a fork adds to a creation (GL ForkService#new_fork_params): its source, and the job that copies the repository. */
export interface ForkCreation {
  sourceId: number
  /** The fork's storage; the weighted pick when absent. */
  storage?: string
  /** The branch HEAD will name once the repository is copied. */
  defaultBranch: string
  objectFormat: string
  /** Runs in the creating transaction once the row has its id (enqueues the copy with the project). */
  schedule: (trx: Db, project: ProjectRow) => Promise<void>
}

/**
 * POST /projects, and POST /projects/user/:user_id with `forUser`. With `fork` the project names its source, starts with
 * import_status "scheduled" and no repository (the scheduled job makes it), and every refusal is a validation error.
 */
export async function createProject(
  ctx: Context,
  input: CreateInput,
  forUser: User | null = null,
  fork: ForkCreation | null = null,
): Promise<ProjectView> {
  const caller = ctx.caller.user
  if (!caller) throw new Forbidden()
  const acting = forUser ? actingAs(ctx, forUser) : ctx
  const creator = acting.caller.user as User
  if (input.templateName !== undefined) {
    throw new Invalid({ template_name: [`'${input.templateName}' is unknown or invalid`] })
  }
  // Only the git import source could apply, and no import source is enabled (GL `import_source_disabled`).
  if (input.importUrl !== undefined && input.importUrl !== '') throw new Forbidden()

  let name = input.name ?? ''
  let path = input.path ?? ''
  // GL `set_project_name_from_path`: either one is derived from the other.
  if (name === '' && path !== '') name = path
  else if (path === '' && name !== '') path = hasProjectPathFormat(name) ? name : parameterize(name)

  const namespace =
    input.namespaceId !== undefined
      ? ((await findNamespaceById(acting.db, input.namespaceId))[0] ?? null)
      : ((await findPersonalNamespace(acting.db, creator.id)) ?? null)
  if (!namespace) throw new Invalid({ namespace: ["can't be blank"] })
  if (namespace.kind === 'user') {
    const limit = await projectLimitError(acting, creator)
    if (limit) {
      if (forUser || fork) throw new Invalid({ limit_reached: [limit] })
      throw new RefusedWithErrors([limit])
    }
  }
  if (!(await canCreateProjectIn(acting, namespace))) throw new Invalid({ namespace: ['is not valid'] })

  const requested = visibilityLevel(input.visibility ?? acting.settings.default_project_visibility)
  // A project cannot be more visible than its group: GitLab lowers it on create (GL CreateService).
  const level = visibilityCappedBy(namespace, requested)
  const at = acting.now().toISOString()
  const readme = input.initializeWithReadme === true
  const settings: ProjectUpdate = { ...input.settings }
  if (input.emailsEnabled !== undefined) settings.emails_enabled = input.emailsEnabled ? 1 : 0
  if (input.maxArtifactsSize !== undefined && isAdmin(acting.caller)) settings.max_artifacts_size = input.maxArtifactsSize
  const row: NewProjectRow = {
    // GL ProjectFeature defaults: pages follow the project's visibility, security and compliance start private.
    pages_access_level: level === Visibility.PUBLIC ? FeatureAccess.ENABLED : FeatureAccess.PRIVATE,
    security_and_compliance_access_level: FeatureAccess.PRIVATE,
    ...(settings as Partial<NewProjectRow>),
    namespace_id: namespace.id,
    name,
    path,
    full_path: `${namespace.full_path}/${path}`,
    full_name: `${namespace.full_name} / ${name}`,
    description: input.description ?? null,
    visibility_level: level,
    creator_id: creator.id,
    // The branch HEAD names, empty repository or not (GL CreateService#default_branch).
    default_branch: fork ? fork.defaultBranch : input.defaultBranch || (await groupDefaultBranch(acting.db, namespace)) || DEFAULT_BRANCH,
    empty_repo: readme ? 0 : 1,
    readme_path: readme ? 'README.md' : null,
    topics: JSON.stringify(input.topics ?? []),
    repository_object_format: fork ? fork.objectFormat : (input.repositoryObjectFormat ?? 'sha1'),
    forked_from_project_id: fork ? fork.sourceId : null,
    import_status: fork ? 'scheduled' : 'none',
    last_activity_at: at,
    created_at: at,
    updated_at: at,
  }
  const chosenStorage = input.repositoryStorage !== undefined && canChangeRepositoryStorage(acting.caller)
  row.repository_storage =
    fork?.storage ?? (chosenStorage ? input.repositoryStorage : pickRepositoryStorage(acting.config, acting.settings))
  const changed = new Set(['name', 'path', 'visibility_level', ...Object.keys(settings), 'description'])
  if (chosenStorage) changed.add('repository_storage')
  const errors = projectValidationErrors(candidateOf(row), changed)
  await saveErrors(acting.db, errors, { ...row, visibility_level: level }, namespace, changed, null, null, storageNames(acting.config))
  if (hasErrors(errors)) throw new Invalid(errors)
  // A name git refuses for a branch makes GitLab's repository creation fail (Gitaly checks it), which CreateService
  // answers with this error. It is refused here before anything is written, and is the caller's mistake, not ours.
  if (!fork && !isValidRefName(row.default_branch ?? DEFAULT_BRANCH)) throw new Invalid({ base: ['Failed to create repository'] })

  let project: ProjectRow
  let madeRepository: { storage: string; id: number } | null = null
  try {
    project = await acting.db.transaction().execute(async (trx) => {
      const inserted = await insertProject(trx, row)
      // The repository is made inside the transaction once the row has its id, so a failure rolls the project back
      // (GL CreateService#save_project_and_import_data: 'Failed to create repository'); the catch removes the directory.
      if (fork) {
        await fork.schedule(trx, inserted)
      } else {
        madeRepository = { storage: inserted.repository_storage, id: inserted.id }
        await makeRepository(acting, inserted, readme ? { description: input.description ?? null, author: creator } : null)
      }
      // GL Projects::ProtectDefaultBranchService: the default branch is protected from the start, as the first push to it would.
      await protectDefaultBranch(trx, inserted, namespace, acting.settings.default_branch_protection, at)
      // The new project wins its path: redirects from it go (GL Route `delete_conflicting_redirects`).
      await releaseRedirectsFrom(trx, [inserted.full_path])
      if (namespace.kind === 'user' && namespace.owner_id !== null) {
        await addOwner(acting, trx, { kind: 'project', id: inserted.id }, namespace.owner_id, caller.id, at)
      }
      // GL EventCreateService#create_project: "created", by the user the project is created for, without a target.
      await recordEvent(trx, { projectId: inserted.id, authorId: creator.id, action: 'created', target: null, at: new Date(at) })
      // GL Projects::CreateService#execute_hooks: after the Owner's membership, which GitLab adds while saving.
      await noticeChange(acting, trx, { kind: 'project', action: 'create', projectId: inserted.id, actorId: creator.id, at: new Date(at) })
      return inserted
    })
  } catch (error) {
    if (madeRepository !== null) {
      const made: { storage: string; id: number } = madeRepository
      await removeRepository(acting.config, made.storage, made.id).catch(() => {})
      if (error instanceof GitError || isFileSystemError(error)) {
        acting.log.error({ err: error, projectId: made.id }, 'could not create the repository of a new project')
        throw new Invalid({ base: ['Failed to create repository'] })
      }
    }
    // A concurrent create took the path first.
    if (await isFullPathTaken(acting.db, row.full_path)) throw new Invalid({ path: ['has already been taken'] })
    throw error
  }
  return reload(ctx, project)
}

function isFileSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string'
}

/** A group's default branch name, else its root group's (GL `default_branch_from_group_preferences`). */
async function groupDefaultBranch(db: Db, namespace: NamespaceRow): Promise<string | null> {
  if (namespace.kind !== 'group') return null
  if (namespace.default_branch) return namespace.default_branch
  const rootId = Number(namespace.traversal_ids.split('/')[0])
  if (rootId === namespace.id) return null
  return (await findNamespaceById(db, rootId))[0]?.default_branch || null
}

/** The new project's bare repository, with GitLab's first commit of a README when asked (GL CreateService#create_readme). */
async function makeRepository(ctx: Context, project: ProjectRow, readme: { description: string | null; author: User } | null) {
  const branch = project.default_branch ?? DEFAULT_BRANCH
  const directory = await createRepository(ctx.config, {
    storage: project.repository_storage,
    projectId: project.id,
    defaultBranch: branch,
    objectFormat: project.repository_object_format === 'sha256' ? 'sha256' : 'sha1',
  })
  if (!readme) return
  const webUrl = webUrlOf(project, ctx.config.externalUrl)
  await commitFirstFile({
    directory,
    branch,
    path: 'README.md',
    content: readmeContent({
      name: project.name,
      description: readme.description,
      httpUrl: `${webUrl}.git`,
      integrationsUrl: `${webUrl}/-/settings/integrations`,
      branch,
    }),
    message: 'Initial commit',
    author: { name: readme.author.name, email: readme.author.commit_email || readme.author.email },
    at: new Date(project.created_at),
  })
}

export function candidateOf(row: Partial<ProjectRow> & { name: string; path: string }) {
  return {
    name: row.name,
    path: row.path,
    description: row.description ?? null,
    ci_config_path: row.ci_config_path ?? null,
    build_timeout: row.build_timeout ?? 3600,
    ci_default_git_depth: row.ci_default_git_depth ?? 20,
    suggestion_commit_message: row.suggestion_commit_message ?? null,
    merge_commit_template: row.merge_commit_template ?? null,
    squash_commit_template: row.squash_commit_template ?? null,
    issue_branch_template: row.issue_branch_template ?? null,
    max_artifacts_size: row.max_artifacts_size ?? null,
  }
}
