import { authorizeAdmin } from '../../core/caller.js'
import type { Context } from '../../core/context.js'
import { Invalid, ParamError, RecordNotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { NamespaceRow, ProjectRow, RepositoryStorageMoveRow } from '../../db/schema.js'
import { enqueueJob, wakeJobWorkers, type JobContext } from '../../jobs/index.js'
import { findSnippetsByIds, presentSnippetsForMoves, type BasicSnippetJson } from '../snippets/index.js'
import {
  markRepositoriesReadOnly,
  markRepositoriesWritable,
  pickRepositoryStorage,
  repositoryDirectory,
  repositoryExists,
  storageNames,
  switchRepositoryStorage,
  type RepositoryKind,
} from '../repositories/index.js'
import { MoveRepositoryStorage, ScheduleBulkStorageMoves } from './jobs.js'
import { waitForPushes } from './pushes.js'
import { haveSameRefs, removeRepositoryAt, replicateRepository, temporaryDirectoryOf } from './replicate.js'
import {
  findContainerIdsOnStorage,
  findContainerStorage,
  findMoveById,
  insertMove,
  selectMoves,
  updateMoveState,
  type ContainerType,
} from './store.js'
import { findNamespacesByIds, findProjectsByIds } from '../access/index.js'

export type { ContainerType } from './store.js'

/** GL RepositoryStorageMovable state values. */
export const MoveState = {
  initial: 1,
  scheduled: 2,
  started: 3,
  finished: 4,
  failed: 5,
  replicated: 6,
  cleanupFailed: 7,
} as const

const STATE_NAMES: Record<number, string> = {
  1: 'initial',
  2: 'scheduled',
  3: 'started',
  4: 'finished',
  5: 'failed',
  6: 'replicated',
  // GL `human_state_name`: the internal cleanup_failed reads with a space.
  7: 'cleanup failed',
}

export function stateName(state: number): string {
  return STATE_NAMES[state] ?? 'initial'
}

/** GL error_message column: text limited to 256 characters. */
const ERROR_MESSAGE_LIMIT = 256

/** GL Gitlab::GlRepository type names, as the wait for pushes names them. */
const REPOSITORY_TYPE_NAMES: Record<RepositoryKind, string> = {
  project: 'project',
  'project-wiki': 'wiki',
  snippet: 'snippet',
  'group-wiki': 'wiki',
}

/** The repositories a storage move carries for each container type (GL *::UpdateRepositoryStorageService#mirror_repositories). */
const REPOSITORY_KINDS: Record<ContainerType, RepositoryKind[]> = {
  project: ['project', 'project-wiki'],
  snippet: ['snippet'],
  group: ['group-wiki'],
}

export interface MoveWindow {
  page: number
  perPage: number
}

/** Moves of one type, or of one container of that type, newest first (GL `order_created_at_desc`). */
/** Whether a project's repository is read-only now, read afresh (a push asks again once its marker is written). */
export async function isProjectRepositoryReadOnly(ctx: Context, projectId: number): Promise<boolean> {
  return (await findContainerStorage(ctx.db, 'project', projectId))?.readOnly ?? false
}

export async function listStorageMoves(
  ctx: Context,
  containerType: ContainerType,
  containerId: number | null,
  window: MoveWindow,
): Promise<OffsetPage<RepositoryStorageMoveRow>> {
  authorizeAdmin(ctx.caller)
  return fetchOffsetPage(ctx.db, selectMoves(ctx.db, containerType, containerId), window.page, window.perPage)
}

/** One move of this type (and of this container when given): else GL's `find` miss, 404 "Not found". */
export async function showStorageMove(
  ctx: Context,
  containerType: ContainerType,
  moveId: number,
  containerId: number | null,
): Promise<RepositoryStorageMoveRow> {
  authorizeAdmin(ctx.caller)
  const move = await findMoveById(ctx.db, moveId)
  if (!move || move.container_type !== containerType) throw new RecordNotFound()
  if (containerId !== null && containerIdOf(move) !== containerId) throw new RecordNotFound()
  return move
}

/** The projects the moves belong to, by id. */
export async function projectsOfMoves(ctx: Context, moves: readonly RepositoryStorageMoveRow[]): Promise<Map<number, ProjectRow>> {
  const projects = await findProjectsByIds(ctx.db, moves.map(containerIdOf))
  return new Map(projects.map((project) => [project.id, project]))
}

/** The groups the moves belong to, by id. */
export async function groupsOfMoves(ctx: Context, moves: readonly RepositoryStorageMoveRow[]): Promise<Map<number, NamespaceRow>> {
  const groups = await findNamespacesByIds(ctx.db, moves.map(containerIdOf))
  return new Map(groups.map((group) => [group.id, group]))
}

/** The snippets the moves belong to as their entity embeds them (GL Entities::BasicSnippet), by id. */
export async function snippetsOfMoves(ctx: Context, moves: readonly RepositoryStorageMoveRow[]): Promise<Map<number, BasicSnippetJson>> {
  const snippets = await findSnippetsByIds(ctx.db, moves.map(containerIdOf))
  const presented = await presentSnippetsForMoves(ctx, snippets)
  return new Map(presented.map((snippet) => [snippet.id, snippet]))
}

export function containerIdOf(move: RepositoryStorageMoveRow): number {
  const id = move.container_type === 'project' ? move.project_id : move.container_type === 'snippet' ? move.snippet_id : move.group_id
  if (id === null) throw new Error(`storage move ${move.id} has no ${move.container_type}`)
  return id
}

/**
 * Records a move and schedules it (GL `storage_move.schedule`): validations first, then, in one transaction, the
 * container becomes read-only and the move job is enqueued. Throws Invalid with GitLab's messages.
 */
async function scheduleMove(
  ctx: Context,
  containerType: ContainerType,
  containerId: number,
  sourceStorageName: string | null,
  destinationStorageName: string | undefined,
): Promise<RepositoryStorageMoveRow> {
  const storages = storageNames(ctx.config)
  // GL `attribute :destination_storage_name, default: -> { Repository.pick_storage_shard }`.
  const destination = destinationStorageName ?? pickRepositoryStorage(ctx.config, ctx.settings)
  // A group without a wiki repository moves from where one would be created (GL Group#repository_storage).
  const source = sourceStorageName ?? pickRepositoryStorage(ctx.config, ctx.settings)
  const errors: Record<string, string[]> = {}
  const check = (attribute: string, value: string) => {
    const messages: string[] = []
    if (value.trim() === '') messages.push("can't be blank")
    if (!storages.includes(value)) messages.push('is not included in the list')
    if (messages.length > 0) errors[attribute] = messages
  }
  check('source_storage_name', source)
  check('destination_storage_name', destination)
  const at = ctx.now().toISOString()
  const scheduled = await ctx.db.transaction().execute(async (trx) => {
    const container = await findContainerStorage(trx, containerType, containerId)
    if (!container) throw new RecordNotFound()
    // GL `container_repository_writable`: a read-only repository is being moved already.
    if (container.readOnly) errors[containerType] = ['is read-only']
    if (Object.keys(errors).length > 0) throw new Invalid(errors)
    // Conditional, so that of two moves scheduled at once only one makes the repository read-only.
    if (!(await markRepositoriesReadOnly(trx, containerType, containerId))) throw new Invalid({ [containerType]: ['is read-only'] })
    const move = await insertMove(trx, {
      containerType,
      containerId,
      state: MoveState.scheduled,
      sourceStorageName: source,
      destinationStorageName: destination,
      at,
    })
    await enqueueJob(trx, MoveRepositoryStorage, { moveId: move.id }, { uniqueKey: `storage-moves.move:${move.id}`, now: ctx.now() })
    return move
  })
  wakeJobWorkers()
  return scheduled
}

/** POST /projects/:id/repository_storage_moves and its snippet and group siblings: the source is where the container is now. */
export async function scheduleStorageMove(
  ctx: Context,
  containerType: ContainerType,
  containerId: number,
  destinationStorageName: string | undefined,
): Promise<RepositoryStorageMoveRow> {
  authorizeAdmin(ctx.caller)
  const container = await findContainerStorage(ctx.db, containerType, containerId)
  if (!container) throw new RecordNotFound()
  return scheduleMove(ctx, containerType, containerId, container.storage, destinationStorageName)
}

/**
 * PUT /projects/:id with `repository_storage` by an administrator (GL Projects::UpdateService
 * `changing_repository_storage?`): a project with a repository is moved by a scheduled storage move, and a move that
 * fails validation is dropped silently, as GitLab does; a project without one may simply change the column
 * ('no repository').
 */
export async function requestProjectStorageMove(
  ctx: Context,
  project: { id: number; repository_storage: string },
  destinationStorageName: string,
): Promise<'scheduled' | 'dropped' | 'no repository'> {
  if (project.repository_storage === destinationStorageName) return 'dropped'
  if (!(await repositoryExists(repositoryDirectory(ctx.config, project.repository_storage, project.id)))) return 'no repository'
  try {
    await scheduleMove(ctx, 'project', project.id, project.repository_storage, destinationStorageName)
    return 'scheduled'
  } catch (error) {
    if (error instanceof Invalid) return 'dropped'
    throw error
  }
}

/**
 * POST /project_repository_storage_moves and its siblings: both names must be configured storages (Grape `values`);
 * a job schedules a move for each container on the source.
 */
export async function scheduleBulkStorageMoves(
  ctx: Context,
  containerType: ContainerType,
  sourceStorageName: string,
  destinationStorageName: string | undefined,
): Promise<void> {
  authorizeAdmin(ctx.caller)
  const storages = storageNames(ctx.config)
  const problems: string[] = []
  if (!storages.includes(sourceStorageName)) problems.push('source_storage_name does not have a valid value')
  if (destinationStorageName !== undefined && !storages.includes(destinationStorageName)) {
    problems.push('destination_storage_name does not have a valid value')
  }
  if (problems.length > 0) throw new ParamError(problems.join(', '))
  await enqueueJob(
    ctx.db,
    ScheduleBulkStorageMoves,
    { containerType, sourceStorageName, destinationStorageName: destinationStorageName ?? null },
    { now: ctx.now() },
  )
  wakeJobWorkers()
}

/** The bulk job: a move for every container still on the source; one that cannot move is skipped and logged. */
export async function scheduleMovesOnStorage(
  ctx: Context,
  containerType: ContainerType,
  sourceStorageName: string,
  destinationStorageName: string | null,
): Promise<void> {
  const ids = await findContainerIdsOnStorage(ctx.db, containerType, sourceStorageName)
  for (const id of ids) {
    const container = await findContainerStorage(ctx.db, containerType, id)
    if (!container || container.storage !== sourceStorageName) continue
    try {
      await scheduleMove(ctx, containerType, id, sourceStorageName, destinationStorageName ?? undefined)
    } catch (error) {
      if (!(error instanceof Invalid)) throw error
      const reasons = Object.entries(error.errors).map(([attribute, messages]) => `${attribute} ${messages.join(', ')}`)
      ctx.log.info({ containerType, id, reasons }, 'repository storage move skipped')
    }
  }
}

function errorMessageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.slice(0, ERROR_MESSAGE_LIMIT)
}

/** Whether the two storage names are one directory, where a move has nothing to copy or remove (GL `same_filesystem?`). */
function sameDirectory(ctx: Context, move: RepositoryStorageMoveRow): boolean {
  return ctx.config.storages[move.source_storage_name] === ctx.config.storages[move.destination_storage_name]
}

function directoriesOf(ctx: Context, move: RepositoryStorageMoveRow, storage: string) {
  const id = containerIdOf(move)
  return REPOSITORY_KINDS[move.container_type].map((kind) => repositoryDirectory(ctx.config, storage, id, kind))
}

/** started → replicated: copies and verifies every repository, then switches the container in one transaction. */
async function replicate(ctx: JobContext, move: RepositoryStorageMoveRow): Promise<void> {
  const id = containerIdOf(move)
  try {
    const container = await findContainerStorage(ctx.db, move.container_type, id)
    if (!container) return
    if (container.storage !== null && container.storage !== move.source_storage_name) {
      throw new Error(`The repository is not on the source storage ${move.source_storage_name}`)
    }
    let copied = false
    if (!sameDirectory(ctx, move)) {
      const sources = directoriesOf(ctx, move, move.source_storage_name)
      const destinations = directoriesOf(ctx, move, move.destination_storage_name)
      for (let n = 0; n < sources.length; n++) {
        if (!(await repositoryExists(sources[n]))) continue
        // Pushes that began before the repository became read-only finish first (GL `wait_for_pushes`).
        if (!(await waitForPushes(sources[n], ctx.signal))) {
          throw new Error(`Timeout waiting for ${REPOSITORY_TYPE_NAMES[REPOSITORY_KINDS[move.container_type][n]]} repository pushes`)
        }
        await replicateRepository(sources[n], destinations[n], ctx.signal)
        copied = true
      }
    }
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('aborted')
    const at = ctx.now().toISOString()
    await ctx.db.transaction().execute(async (trx) => {
      if (!(await updateMoveState(trx, move.id, [MoveState.started], MoveState.replicated, at))) return
      // A group without a wiki keeps having none (GL Groups::UpdateRepositoryStorageService#track_repository).
      await switchRepositoryStorage(trx, move.container_type, id, move.destination_storage_name, {
        recordStorage: container.storage !== null || copied,
        at,
      })
    })
  } catch (error) {
    // Another worker holds the job now: it finishes the move.
    if (ctx.signal.aborted) throw error
    ctx.log.warn({ err: error, moveId: move.id }, 'repository storage move failed')
    const at = ctx.now().toISOString()
    const failed = await ctx.db.transaction().execute(async (trx) => {
      if (!(await updateMoveState(trx, move.id, [MoveState.started], MoveState.failed, at, errorMessageOf(error)))) return false
      await markRepositoriesWritable(trx, move.container_type, id)
      return true
    })
    // The container stays on the source: copies left on the destination are nobody's.
    if (failed && !sameDirectory(ctx, move)) {
      for (const directory of directoriesOf(ctx, move, move.destination_storage_name)) {
        await removeRepositoryAt(temporaryDirectoryOf(directory)).catch(() => {})
        await removeRepositoryAt(directory).catch(() => {})
      }
    }
  }
}

/** replicated → finished: the container uses the destination; the source copies go (else "cleanup failed"). */
async function cleanUp(ctx: JobContext, move: RepositoryStorageMoveRow): Promise<void> {
  let errorMessage: string | null = null
  if (!sameDirectory(ctx, move)) {
    try {
      const sources = directoriesOf(ctx, move, move.source_storage_name)
      const destinations = directoriesOf(ctx, move, move.destination_storage_name)
      for (let n = 0; n < sources.length; n++) {
        if (!(await repositoryExists(sources[n]))) continue
        // A push accepted just before the repository became read-only may have landed after the copy: keep its only copy.
        if (!(await haveSameRefs(sources[n], destinations[n])))
          throw new Error('The source repository changed after it was copied; it was kept')
        await removeRepositoryAt(sources[n])
      }
    } catch (error) {
      ctx.log.warn({ err: error, moveId: move.id }, 'removing the source of a repository storage move failed')
      errorMessage = errorMessageOf(error)
    }
  }
  const at = ctx.now().toISOString()
  if (errorMessage === null) await updateMoveState(ctx.db, move.id, [MoveState.replicated], MoveState.finished, at)
  else await updateMoveState(ctx.db, move.id, [MoveState.replicated], MoveState.cleanupFailed, at, errorMessage)
}

/**
 * The move job (GL UpdateRepositoryStorageMethods#execute), resumable from every state: scheduled starts it, started
 * (a run that died while copying) copies again from the untouched source, replicated only cleans up.
 */
export async function runStorageMove(ctx: JobContext, moveId: number): Promise<void> {
  try {
    await resumeStorageMove(ctx, moveId)
  } catch (error) {
    // The last attempt that fails for an unexpected reason (database, file system) leaves the move failed and the
    // repository writable rather than read-only for good; a move already switched keeps its new storage.
    if (!ctx.signal.aborted && ctx.job.attempt >= MoveRepositoryStorage.maxAttempts) await giveUp(ctx, moveId, error)
    throw error
  }
}

async function giveUp(ctx: JobContext, moveId: number, error: unknown): Promise<void> {
  const move = await findMoveById(ctx.db, moveId)
  if (!move) return
  const at = ctx.now().toISOString()
  await ctx.db.transaction().execute(async (trx) => {
    if (await updateMoveState(trx, move.id, [MoveState.scheduled, MoveState.started], MoveState.failed, at, errorMessageOf(error))) {
      await markRepositoriesWritable(trx, move.container_type, containerIdOf(move))
    }
    await updateMoveState(trx, move.id, [MoveState.replicated], MoveState.cleanupFailed, at, errorMessageOf(error))
  })
}

async function resumeStorageMove(ctx: JobContext, moveId: number): Promise<void> {
  let move = await findMoveById(ctx.db, moveId)
  if (!move) return
  if (move.state === MoveState.scheduled) {
    await updateMoveState(ctx.db, move.id, [MoveState.scheduled], MoveState.started, ctx.now().toISOString())
    move = await findMoveById(ctx.db, moveId)
    if (!move) return
  }
  if (move.state === MoveState.started) {
    await replicate(ctx, move)
    move = await findMoveById(ctx.db, moveId)
    if (!move) return
  }
  if (move.state === MoveState.replicated) await cleanUp(ctx, move)
}
