import type { Context } from '../../core/context.js'
import { Forbidden, Invalid, PreconditionFailed, RecordNotFound } from '../../core/errors.js'
import { fetchOffsetPage, type OffsetPage } from '../../db/pagination.js'
import type { ClusterRow } from '../../db/schema.js'
import { canAdminClusters, canReadClusters } from './policy.js'
import type { AuthorizationType } from './schemas.js'
import {
  deleteClusterRow,
  findClusterInProject,
  insertCluster,
  isEnvironmentScopeTaken,
  selectProjectClusters,
  updateClusterRow,
  type ClusterChanges,
} from './store.js'
import { apiUrlProblem, caCertProblem, domainProblem, environmentScopeProblem, namespaceProblems } from './validation.js'
import { type LoadedProject } from '../access/index.js'

/** GL ClusterNameValidator: user-provided cluster names may be this long. */
const MAX_NAME_LENGTH = 2048

/** GL ClustersFinder: a caller who may not read clusters finds none, so a named one is "Not found". */
async function findCluster(ctx: Context, loaded: LoadedProject, clusterId: number): Promise<ClusterRow> {
  const cluster = canReadClusters(loaded.access, loaded.project)
    ? await findClusterInProject(ctx.db, loaded.project.id, clusterId)
    : undefined
  if (!cluster) throw new RecordNotFound()
  return cluster
}

export async function listClusters(ctx: Context, loaded: LoadedProject, page: number, perPage: number): Promise<OffsetPage<ClusterRow>> {
  if (!canReadClusters(loaded.access, loaded.project)) throw new Forbidden()
  return fetchOffsetPage(ctx.db, selectProjectClusters(ctx.db, loaded.project.id), page, perPage)
}

export function showCluster(ctx: Context, loaded: LoadedProject, clusterId: number): Promise<ClusterRow> {
  return findCluster(ctx, loaded, clusterId)
}

/** A cluster's attributes as the model holds them, platform included. */
type ClusterAttributes = Pick<
  ClusterRow,
  | 'name'
  | 'enabled'
  | 'managed'
  | 'domain'
  | 'environment_scope'
  | 'namespace_per_environment'
  | 'api_url'
  | 'namespace'
  | 'authorization_type'
  | 'ca_cert'
  | 'token'
>

function addError(errors: Record<string, string[]>, attribute: string, message: string) {
  ;(errors[attribute] ??= []).push(message)
}

/**
 * GL Clusters::Cluster and Clusters::Platforms::Kubernetes validations, the platform's reported as
 * `platform_kubernetes.<attribute>` as Rails names an autosaved association's errors.
 */
async function validate(ctx: Context, projectId: number, attributes: ClusterAttributes, changed: { name: boolean; id: number | null }) {
  const errors: Record<string, string[]> = {}
  if (attributes.environment_scope.trim() === '') addError(errors, 'environment_scope', "can't be blank")
  const scopeProblem = environmentScopeProblem(attributes.environment_scope)
  if (scopeProblem) addError(errors, 'environment_scope', scopeProblem)
  for (const problem of namespaceProblems(attributes.namespace)) addError(errors, 'platform_kubernetes.namespace', problem)
  if (attributes.api_url.trim() === '') addError(errors, 'platform_kubernetes.api_url', "can't be blank")
  else {
    const urlProblem = apiUrlProblem(attributes.api_url)
    if (urlProblem) addError(errors, 'platform_kubernetes.api_url', urlProblem)
  }
  if (attributes.token.trim() === '') addError(errors, 'platform_kubernetes.token', "can't be blank")
  const certProblem = caCertProblem(attributes.ca_cert)
  if (certProblem) addError(errors, 'platform_kubernetes.ca_cert', certProblem)
  if (attributes.name.trim() === '') addError(errors, 'name', 'has to be present')
  else if (changed.name && attributes.name.length > MAX_NAME_LENGTH) addError(errors, 'name', 'is too long')
  const hostProblem = domainProblem(attributes.domain)
  if (hostProblem) addError(errors, 'domain', hostProblem)
  if (await isEnvironmentScopeTaken(ctx.db, projectId, attributes.environment_scope, changed.id)) {
    addError(errors, 'environment_scope', 'cannot add duplicated environment scope')
  }
  if (Object.keys(errors).length > 0) throw new Invalid(errors)
}

export interface CreateClusterInput {
  name: string
  enabled: boolean
  domain?: string | null
  environmentScope: string
  namespacePerEnvironment: boolean
  managed: boolean
  apiUrl: string
  token: string
  caCert?: string | null
  namespace?: string | null
  authorizationType: AuthorizationType
}

/** GL Clusters::CreateService for a user-provided Kubernetes cluster of the project. */
export async function createCluster(ctx: Context, loaded: LoadedProject, input: CreateClusterInput): Promise<ClusterRow> {
  if (!canAdminClusters(loaded.access, loaded.project)) throw new Forbidden()
  const attributes: ClusterAttributes = {
    name: input.name,
    enabled: input.enabled ? 1 : 0,
    managed: input.managed ? 1 : 0,
    domain: input.domain ?? null,
    environment_scope: input.environmentScope,
    namespace_per_environment: input.namespacePerEnvironment ? 1 : 0,
    api_url: input.apiUrl,
    // GL Platforms::Kubernetes before_validation: the namespace lower-cased, the certificate and token trimmed.
    namespace: input.namespace?.toLowerCase() ?? null,
    authorization_type: input.authorizationType,
    ca_cert: input.caCert?.trim() ?? null,
    token: input.token.trim(),
  }
  return ctx.db.transaction().execute(async (trx) => {
    await validate({ ...ctx, db: trx }, loaded.project.id, attributes, { name: true, id: null })
    const at = ctx.now().toISOString()
    return insertCluster(trx, {
      ...attributes,
      project_id: loaded.project.id,
      user_id: ctx.caller.user?.id ?? null,
      created_at: at,
      updated_at: at,
    })
  })
}

export interface UpdateClusterInput {
  name?: string
  domain?: string | null
  environmentScope?: string
  namespacePerEnvironment: boolean
  enabled?: boolean
  managed?: boolean
  platform?: { apiUrl?: string; token?: string; caCert?: string | null; namespace?: string | null }
}

/** GL Clusters::UpdateService: `cluster.update(params)`; a blank token keeps the current one. */
export async function updateCluster(
  ctx: Context,
  loaded: LoadedProject,
  clusterId: number,
  input: UpdateClusterInput,
): Promise<ClusterRow> {
  const cluster = await findCluster(ctx, loaded, clusterId)
  if (!canAdminClusters(loaded.access, loaded.project)) throw new Forbidden()
  const platform = input.platform ?? {}
  const changes: ClusterChanges = {}
  const set = <K extends keyof ClusterChanges>(key: K, value: ClusterChanges[K] | undefined) => {
    if (value !== undefined && value !== cluster[key]) changes[key] = value
  }
  set('name', input.name)
  set('domain', input.domain)
  set('environment_scope', input.environmentScope)
  set('namespace_per_environment', input.namespacePerEnvironment ? 1 : 0)
  set('enabled', input.enabled === undefined ? undefined : input.enabled ? 1 : 0)
  set('managed', input.managed === undefined ? undefined : input.managed ? 1 : 0)
  set('api_url', platform.apiUrl)
  if (platform.token !== undefined && platform.token.trim() !== '') set('token', platform.token.trim())
  set('ca_cert', platform.caCert === undefined ? undefined : (platform.caCert?.trim() ?? null))
  set('namespace', platform.namespace === undefined ? undefined : (platform.namespace?.toLowerCase() ?? null))
  return ctx.db.transaction().execute(async (trx) => {
    await validate({ ...ctx, db: trx }, loaded.project.id, { ...cluster, ...changes }, { name: 'name' in changes, id: cluster.id })
    if (Object.keys(changes).length === 0) return cluster
    return updateClusterRow(trx, cluster.id, { ...changes, updated_at: ctx.now().toISOString() })
  })
}

/** GL `destroy_conditionally!(cluster)`; its annotations go with it (foreign keys cascade). */
export async function deleteCluster(ctx: Context, loaded: LoadedProject, clusterId: number, unmodifiedSince: Date | null) {
  const cluster = await findCluster(ctx, loaded, clusterId)
  if (!canAdminClusters(loaded.access, loaded.project)) throw new Forbidden()
  if (unmodifiedSince && Math.floor(new Date(cluster.updated_at).getTime() / 1000) > Math.floor(unmodifiedSince.getTime() / 1000)) {
    throw new PreconditionFailed()
  }
  await deleteClusterRow(ctx.db, cluster.id)
}
