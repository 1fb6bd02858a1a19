import type { Context } from '../../core/context.js'
import { BadRequest, Forbidden, Invalid, PreconditionFailed, RecordNotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { EnvironmentRow } from '../../db/schema.js'
import { environmentSlug, externalUrlProblem, guessTier, isValidEnvironmentName, NAME_FORMAT_MESSAGE } from './naming.js'
import { canReadEnvironments, canWriteEnvironments } from './policy.js'
import type { EnvironmentState, Tier } from './schemas.js'
import {
  deleteEnvironmentRow,
  findEnvironmentInProject,
  findTakenNameAndSlug,
  insertEnvironment,
  selectEnvironments,
  updateEnvironmentRow,
} from './store.js'
import { type LoadedProject } from '../access/index.js'

/** GL API::Environments::MIN_SEARCH_LENGTH. */
const MIN_SEARCH_LENGTH = 3
const MAX_LENGTH = 255

function authorizeRead(loaded: LoadedProject) {
  if (!canReadEnvironments(loaded.access, loaded.project)) throw new Forbidden()
}

function authorizeWrite(loaded: LoadedProject) {
  if (!canWriteEnvironments(loaded.access, loaded.project)) throw new Forbidden()
}

/** GL `user_project.environments.find`: 404 "Not found". */
async function findEnvironment(ctx: Context, loaded: LoadedProject, environmentId: number): Promise<EnvironmentRow> {
  const environment = await findEnvironmentInProject(ctx.db, loaded.project.id, environmentId)
  if (!environment) throw new RecordNotFound()
  return environment
}

export interface ListEnvironmentsInput {
  name?: string
  search?: string
  states?: EnvironmentState
  page: number
  perPage: number
}

/** GL Environments::EnvironmentsFinder: by exact name, by name prefix, by state; oldest first. */
export async function listEnvironments(
  ctx: Context,
  loaded: LoadedProject,
  input: ListEnvironmentsInput,
): Promise<OffsetPage<EnvironmentRow>> {
  authorizeRead(loaded)
  const search = input.search !== undefined && input.search.trim() !== '' ? input.search : undefined
  if (search !== undefined && search.length < MIN_SEARCH_LENGTH)
    throw new BadRequest(`Search query is less than ${MIN_SEARCH_LENGTH} characters`)
  // GL EnvironmentsFinder filters only by a name that is present.
  const name = input.name !== undefined && input.name.trim() !== '' ? input.name : undefined
  const query = selectEnvironments(ctx.db, loaded.project.id, { name, namePrefix: search, state: input.states })
  return fetchOffsetPage(ctx.db, query, input.page, input.perPage)
}

export async function showEnvironment(ctx: Context, loaded: LoadedProject, environmentId: number): Promise<EnvironmentRow> {
  authorizeRead(loaded)
  return findEnvironment(ctx, loaded, environmentId)
}

/** GL `nullify_if_blank :external_url`. */
function blankToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === '' ? null : value
}

function addError(errors: Record<string, string[]>, attribute: string, message: string) {
  ;(errors[attribute] ??= []).push(message)
}

function externalUrlErrors(errors: Record<string, string[]>, url: string | null) {
  if (url === null) return
  if (url.length > MAX_LENGTH) addError(errors, 'external_url', `is too long (maximum is ${MAX_LENGTH} characters)`)
  const problem = externalUrlProblem(url)
  if (problem) addError(errors, 'external_url', problem)
}

export interface CreateEnvironmentInput {
  name: string
  externalUrl?: string | null
  tier?: Tier
}

/** GL `user_project.environments.create` with the model's validations, in the model's order. */
export async function createEnvironment(ctx: Context, loaded: LoadedProject, input: CreateEnvironmentInput): Promise<EnvironmentRow> {
  authorizeWrite(loaded)
  const { name } = input
  const slug = environmentSlug(name)
  const externalUrl = blankToNull(input.externalUrl)
  return ctx.db.transaction().execute(async (trx) => {
    const taken = await findTakenNameAndSlug(trx, loaded.project.id, name, slug)
    const errors: Record<string, string[]> = {}
    if (name.trim() === '') addError(errors, 'name', "can't be blank")
    if (taken.name) addError(errors, 'name', 'has already been taken')
    if (name.length > MAX_LENGTH) addError(errors, 'name', `is too long (maximum is ${MAX_LENGTH} characters)`)
    if (!isValidEnvironmentName(name)) addError(errors, 'name', NAME_FORMAT_MESSAGE)
    if (taken.slug) addError(errors, 'slug', 'has already been taken')
    externalUrlErrors(errors, externalUrl)
    if (Object.keys(errors).length > 0) throw new Invalid(errors)
    const at = ctx.now().toISOString()
    return insertEnvironment(trx, {
      project_id: loaded.project.id,
      name,
      slug,
      external_url: externalUrl,
      state: 'available',
      tier: input.tier ?? guessTier(name),
      auto_stop_at: null,
      created_at: at,
      updated_at: at,
    })
  })
}

export interface UpdateEnvironmentInput {
  externalUrl?: string | null
  tier?: Tier
}

/** GL `environment.update(external_url, tier)`; the name can no longer be changed (GitLab 16.0). */
export async function updateEnvironment(
  ctx: Context,
  loaded: LoadedProject,
  environmentId: number,
  input: UpdateEnvironmentInput,
): Promise<EnvironmentRow> {
  authorizeWrite(loaded)
  const environment = await findEnvironment(ctx, loaded, environmentId)
  const changes: { external_url?: string | null; tier?: string } = {}
  if (input.externalUrl !== undefined) {
    const externalUrl = blankToNull(input.externalUrl)
    if (externalUrl !== environment.external_url) changes.external_url = externalUrl
  }
  if (input.tier !== undefined && input.tier !== environment.tier) changes.tier = input.tier
  const errors: Record<string, string[]> = {}
  if (changes.external_url !== undefined) externalUrlErrors(errors, changes.external_url)
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
  // Rails saves nothing, and leaves updated_at alone, when no attribute changed.
  if (Object.keys(changes).length === 0) return environment
  return updateEnvironmentRow(ctx.db, environment.id, { ...changes, updated_at: ctx.now().toISOString() })
}

/**
 * GL Environments::StopService: without the right to stop, the environment is answered unchanged (the API shows
 * it whatever the service did). svc runs no stop jobs, so an available environment stops at once; `force` also
 * completes one that is stopping.
 */
export async function stopEnvironment(ctx: Context, loaded: LoadedProject, environmentId: number, force: boolean): Promise<EnvironmentRow> {
  authorizeRead(loaded)
  const environment = await findEnvironment(ctx, loaded, environmentId)
  if (!canWriteEnvironments(loaded.access, loaded.project)) return environment
  const stoppable = environment.state === 'available' || (force && environment.state === 'stopping')
  if (!stoppable) return environment
  return updateEnvironmentRow(ctx.db, environment.id, { state: 'stopped', auto_stop_at: null, updated_at: ctx.now().toISOString() })
}

/** GL EnvironmentPolicy: only a stopped environment may be deleted; its annotations go with it (foreign keys cascade). */
export async function deleteEnvironment(ctx: Context, loaded: LoadedProject, environmentId: number, unmodifiedSince: Date | null) {
  authorizeRead(loaded)
  const environment = await findEnvironment(ctx, loaded, environmentId)
  if (!canWriteEnvironments(loaded.access, loaded.project) || environment.state !== 'stopped') throw new Forbidden()
  // GL destroy_conditionally!: compared in whole seconds, as the header carries them.
  if (unmodifiedSince && Math.floor(new Date(environment.updated_at).getTime() / 1000) > Math.floor(unmodifiedSince.getTime() / 1000)) {
    throw new PreconditionFailed()
  }
  await deleteEnvironmentRow(ctx.db, environment.id)
}
