import { randomBytes } from 'node:crypto'
import type { Context } from '../../core/context.js'
import { NotFound, RecordNotFound } from '../../core/errors.js'
import { toSentence } from '../../core/sentence.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { ErrorTrackingClientKeyRow, ErrorTrackingSettingsRow } from '../../db/schema.js'
import { authorizeAdminOperations } from './policy.js'
import {
  deleteClientKeyRow,
  findClientKey,
  findSettings,
  hasActiveClientKey,
  insertClientKey,
  selectClientKeys,
  updateClientKeyActive,
  upsertSettings,
} from './store.js'
import { type LoadedProject } from '../access/index.js'

/**
 * A new client key's public key. GitLab writes `glet_` ("GitLab error tracking") + 32 lowercase hex; the prefix carries
 * GitLab's brand, so svc writes its own, as it does `svcpat-` for tokens (spec/README.md "Brand and tracker names").
 */
export function generatePublicKey(): string {
  return `svcet_${randomBytes(16).toString('hex')}`
}

/** GL ProjectErrorTrackingSetting::API_URL_PATH_REGEXP: `/api/0/projects/<organization>/<project>/`. */
const API_URL_PATH = /^(\/api\/0\/projects\/+)(?:([^/]+)\/+([^/]+)\/*)?$/

function apiUrlSlugs(apiUrl: string | null): { prefix: boolean; organization?: string; project?: string } {
  if (!apiUrl) return { prefix: false }
  let path: string
  try {
    path = new URL(apiUrl).pathname
  } catch {
    return { prefix: false }
  }
  const match = API_URL_PATH.exec(path)
  if (!match) return { prefix: false }
  return { prefix: true, organization: match[2], project: match[3] }
}

/** Ruby's `titleize`: "my-awesome_project" → "My Awesome Project". */
function titleize(text: string): string {
  return text
    .replace(/([A-Z\d]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase()
    .replace(/_id$/, '')
    .replace(/_/g, ' ')
    .replace(/\b('?[a-z])/g, (c) => c.toUpperCase())
}

/** GL ProjectErrorTrackingSetting#project_name: the stored name, else the titleized project slug of api_url. */
export function trackerProjectName(settings: ErrorTrackingSettingsRow): string | null {
  if (settings.project_name !== null) return settings.project_name
  const slug = apiUrlSlugs(settings.api_url).project
  return slug === undefined ? null : titleize(slug)
}

/** GL `extract_sentry_external_url`: api_url without its `api/0/projects/`. */
export function trackerExternalUrl(settings: ErrorTrackingSettingsRow): string | null {
  return settings.api_url === null ? null : settings.api_url.replace('api/0/projects/', '')
}

/** The collector URL SDKs send to: `<protocol>://<public key>@<host>[:port]<relative root>/api/v4/error_tracking/collector/<project id>`. */
export function trackerDsn(externalUrl: string, publicKey: string, projectId: number): string {
  const url = new URL(externalUrl)
  const root = url.pathname.replace(/\/+$/, '')
  return `${url.protocol}//${publicKey}@${url.host}${root}/api/v4/error_tracking/collector/${projectId}`
}

/** The service's refusal as GitLab returns it: the result hash with status 200 (GL BaseService#error). */
export interface SettingsFailure {
  message: string
  status: 'error'
}

/** The project's settings, or null when it has none yet (the settings page shows them off). */
export async function findProjectSettings(ctx: Context, loaded: LoadedProject): Promise<ErrorTrackingSettingsRow | null> {
  authorizeAdminOperations(loaded.access)
  return (await findSettings(ctx.db, loaded.project.id)) ?? null
}

export async function showSettings(ctx: Context, loaded: LoadedProject): Promise<ErrorTrackingSettingsRow> {
  authorizeAdminOperations(loaded.access)
  const settings = await findSettings(ctx.db, loaded.project.id)
  if (!settings) throw new NotFound('Error Tracking Setting')
  return settings
}

/**
 * GL ProjectErrorTrackingSetting validations, as Projects::UpdateService words the project's nested errors: with
 * the external tracker on (enabled, not integrated), its API URL and token are required and the URL must name
 * an organization and a project.
 */
function settingsProblems(values: { enabled: number; integrated: number; api_url: string | null; token: string | null }): string[] {
  if (!values.enabled || values.integrated) return []
  const problems: string[] = []
  const apiUrl = values.api_url ?? ''
  if (apiUrl.trim() === '') problems.push('Error tracking setting api url is a required field')
  if ((values.token ?? '').trim() === '') problems.push('Error tracking setting token is a required field')
  if (apiUrl.trim() !== '') {
    const slugs = apiUrlSlugs(apiUrl)
    if (!slugs.prefix) problems.push('Error tracking setting api url is invalid')
    else if (slugs.organization === undefined) problems.push('Error tracking setting project is a required field')
  }
  return problems
}

export interface SettingsInput {
  active: boolean
  integrated?: boolean
  /** PUT creates the settings when the project has none; PATCH answers 404. */
  create: boolean
}

/**
 * Switches error tracking on or off (GL API::ErrorTracking::ProjectSettings and Projects::Operations::UpdateService).
 * Saving it enabled with the integrated backend gives the project a first client key when it has no active one,
 * so its DSN works at once (GL ProjectErrorTrackingSetting#create_client_key!).
 */
export async function updateSettings(
  ctx: Context,
  loaded: LoadedProject,
  input: SettingsInput,
): Promise<{ settings: ErrorTrackingSettingsRow } | { failure: SettingsFailure }> {
  authorizeAdminOperations(loaded.access)
  const projectId = loaded.project.id
  const at = ctx.now().toISOString()
  return ctx.db.transaction().execute(async (trx) => {
    const current = await findSettings(trx, projectId)
    if (!current && !input.create) throw new NotFound('Error Tracking Setting')
    const values = {
      enabled: input.active ? 1 : 0,
      integrated: input.integrated === undefined ? (current?.integrated ?? 0) : input.integrated ? 1 : 0,
    }
    const problems = settingsProblems({ ...values, api_url: current?.api_url ?? null, token: current?.token ?? null })
    if (problems.length > 0) return { failure: { message: toSentence(problems), status: 'error' as const } }
    await upsertSettings(trx, projectId, values, at)
    if (values.enabled && values.integrated && !(await hasActiveClientKey(trx, projectId))) {
      await insertClientKey(trx, projectId, generatePublicKey(), at)
    }
    return { settings: (await findSettings(trx, projectId)) as ErrorTrackingSettingsRow }
  })
}

// ----- client keys (GL API::ErrorTracking::ClientKeys) -----

export function listClientKeys(
  ctx: Context,
  loaded: LoadedProject,
  page: number,
  perPage: number,
): Promise<OffsetPage<ErrorTrackingClientKeyRow>> {
  authorizeAdminOperations(loaded.access)
  return fetchOffsetPage(ctx.db, selectClientKeys(ctx.db, loaded.project.id), page, perPage)
}

export function createClientKey(ctx: Context, loaded: LoadedProject): Promise<ErrorTrackingClientKeyRow> {
  authorizeAdminOperations(loaded.access)
  return insertClientKey(ctx.db, loaded.project.id, generatePublicKey(), ctx.now().toISOString())
}

/** The key of the project by the id a form or URL gave; a key of another project, or none, is `404 Not found`. */
async function findProjectClientKey(ctx: Context, loaded: LoadedProject, keyId: string): Promise<ErrorTrackingClientKeyRow> {
  const id = /^\d+$/.test(keyId) ? Number(keyId) : NaN
  const key = Number.isSafeInteger(id) ? await findClientKey(ctx.db, loaded.project.id, id) : undefined
  if (!key) throw new RecordNotFound()
  return key
}

/**
 * Switches a key on or off: an inactive key's DSN is refused by the collector (404, as GitLab's `active` scope does)
 * until it is switched on again. GitLab's API has no such call; the settings page offers it.
 */
export async function setClientKeyActive(
  ctx: Context,
  loaded: LoadedProject,
  keyId: string,
  active: boolean,
): Promise<ErrorTrackingClientKeyRow> {
  authorizeAdminOperations(loaded.access)
  const key = await findProjectClientKey(ctx, loaded, keyId)
  const updated = await updateClientKeyActive(ctx.db, key.id, active, ctx.now().toISOString())
  if (!updated) throw new RecordNotFound()
  return updated
}

/** Deletes a key and answers it, as GitLab does; a key of another project, or none, is `404 Not found` (`find` raising). */
export async function deleteClientKey(ctx: Context, loaded: LoadedProject, keyId: string): Promise<ErrorTrackingClientKeyRow> {
  authorizeAdminOperations(loaded.access)
  const key = await findProjectClientKey(ctx, loaded, keyId)
  if (!(await deleteClientKeyRow(ctx.db, key.id))) throw new RecordNotFound()
  return key
}
